/**
 * The one error type that crosses module and process boundaries.
 *
 * `code` is the stable machine-readable value clients branch on; `status` is the HTTP
 * status the gateway answers with. Everything else thrown is an unexpected failure and
 * is reported as INTERNAL_ERROR with an error id, never with its message.
 */
export interface AppErrorInit {
  status: number;
  code: string;
  message: string;
  /** Extra machine-readable fields merged into the error body (e.g. hostedZoneId). */
  details?: Record<string, unknown>;
  /** OpenAI-compatible routes name the offending field here. */
  param?: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: Record<string, unknown>;
  readonly param?: string;

  constructor(init: AppErrorInit) {
    super(init.message);
    this.name = 'AppError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.param = init.param;
  }

  toJSON(): AppErrorInit {
    return { status: this.status, code: this.code, message: this.message, details: this.details, param: this.param };
  }

  static fromJSON(value: AppErrorInit): AppError {
    return new AppError(value);
  }

  static isAppError(value: unknown): value is AppError {
    return value instanceof AppError;
  }
}
