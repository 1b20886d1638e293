/**
 * The logging the transport needs: pino's `(obj, msg)` shape, so a pino logger can be passed
 * as is, without the transport depending on pino.
 */
export interface Logger {
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
}

function line(level: string, obj: Record<string, unknown>, msg?: string): string {
  return JSON.stringify({ level, time: new Date().toISOString(), ...obj, msg }, (_key, value: unknown) =>
    value instanceof Error ? { type: value.name, message: value.message, stack: value.stack } : value,
  );
}

/** JSON lines on stderr: the default until a real logger is plugged in. */
export const consoleLogger: Logger = {
  info: (obj, msg) => console.error(line('info', obj, msg)),
  warn: (obj, msg) => console.error(line('warn', obj, msg)),
  error: (obj, msg) => console.error(line('error', obj, msg)),
};

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
