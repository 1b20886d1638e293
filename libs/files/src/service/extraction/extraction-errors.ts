/** Why a file's text could not be extracted; stored with the file, so callers branch on it. */
export type ExtractionFailureReason =
  'malformed' | 'too_many_pages' | 'archive_too_large' | 'timeout' | 'too_much_memory' | 'unsupported';

/** An extraction refused or failed because of the file: its structure, or what reading it would cost. */
export class ExtractionError extends Error {
  readonly reason: ExtractionFailureReason;

  constructor(reason: ExtractionFailureReason, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ExtractionError';
    this.reason = reason;
  }
}
