/** The slice of a pino logger this library uses, so callers can pass theirs (or none). */
export interface PersistenceLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug?(obj: object, msg?: string): void;
}

export const silentLogger: PersistenceLogger = { info: () => undefined, warn: () => undefined };
