import { AppError } from '@kw/platform-errors';

/** Limits of the filter language: the text and the nesting a request may send. */
export const FILTER_MAX_LENGTH = 2000;
export const FILTER_MAX_DEPTH = 16;
export const FILTER_MAX_COMPARISONS = 64;

/** A filter the language refuses, with the 0-based character position it stopped at. */
export class FilterError extends Error {
  constructor(
    readonly position: number,
    readonly reason: string,
  ) {
    super(`${reason} (at position ${position})`);
    this.name = 'FilterError';
  }
}

/**
 * The 400 answer for a bad filter: `{error, code: 'INVALID_FILTER', position, reason, param:
 * 'filter'}`. `param` is in the details too: the platform's error body shows details, not `param`.
 */
export const invalidFilter = (error: FilterError): AppError =>
  new AppError({
    status: 400,
    code: 'INVALID_FILTER',
    message: `Invalid filter: ${error.message}`,
    details: { position: error.position, reason: error.reason, param: 'filter' },
    param: 'filter',
  });
