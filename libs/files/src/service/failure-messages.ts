import type { ExtractionFailureReason } from './extraction/extraction-errors.js';

/** Processing failed for another reason than the file's content, three times. */
export type FileFailureReason = ExtractionFailureReason | 'processing_error';

/**
 * What a failed file's `failureMessage` tells its users, per reason. The extractor's own words
 * (a parser's `[xmldom error] entity not found`, `Maximum call stack size exceeded`) describe
 * our internals, not the document: they go to the log only.
 */
const MESSAGES: Readonly<Record<FileFailureReason, string>> = {
  malformed: 'The document is malformed and could not be read.',
  too_many_pages: 'The document has more pages than the platform reads; its text was not extracted.',
  archive_too_large: 'The document unpacks to more data than the platform reads; its text was not extracted.',
  timeout: 'Reading the document took longer than the platform allows.',
  too_much_memory: 'Reading the document needed more memory than the platform allows.',
  unsupported: 'The document is password-protected or uses a feature the platform cannot read.',
  processing_error: 'The file could not be processed.',
};

export function failureMessageFor(reason: string): string {
  return MESSAGES[reason as FileFailureReason] ?? MESSAGES.processing_error;
}
