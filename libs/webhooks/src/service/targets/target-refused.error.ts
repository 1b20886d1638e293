import { AppError, ErrorCode } from '@kw/platform-errors';

/**
 * Why a webhook target was refused; the error body carries it as `reason` so a client can
 * branch on it. 'address' comes with `range` (the forbidden range's name).
 */
export type TargetRefusalReason =
  | 'invalid-url'
  | 'not-canonical'
  | 'fragment'
  | 'scheme'
  | 'credentials'
  | 'query-credentials'
  | 'port'
  | 'localhost'
  | 'address'
  | 'dns';

/** A 400 VALIDATION_FAILED on the `url` field; never names the resolved address (no internal DNS leaks). */
export class TargetRefusedError extends AppError {
  readonly reason: TargetRefusalReason;

  constructor(reason: TargetRefusalReason, message: string, range?: string) {
    super({
      status: 400,
      code: ErrorCode.VALIDATION_FAILED,
      message: `Webhook target refused: ${message}`,
      details: { fields: [{ field: 'url', problems: [message] }], reason, ...(range ? { range } : {}) },
      param: 'url',
    });
    this.name = 'TargetRefusedError';
    this.reason = reason;
  }
}
