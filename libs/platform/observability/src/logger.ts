import { pino, type Logger, type LoggerOptions } from 'pino';
import { requestContext } from '@kw/platform-context';

export type { Logger } from 'pino';

/**
 * Paths that may carry secrets. Redaction is the last line of defence: code should not log
 * these values in the first place.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'authorization',
  'password',
  'token',
  'secret',
  '*.password',
  '*.token',
  '*.secret',
];

export interface LoggerSettings {
  level: string;
  component: string;
  pretty?: boolean;
  /** Where to write; default stdout. Tests pass a stream to read lines back. */
  destination?: NodeJS.WritableStream;
}

/** JSON logs, one line per event, each carrying the component and the current request id. */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    base: { component: settings.component, pid: process.pid },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const reqId = requestContext.requestId();
      return reqId ? { reqId } : {};
    },
  };
  return settings.destination ? pino(options, settings.destination as pino.DestinationStream) : pino(options);
}
