import type { FilesDb } from './files-database.js';

/**
 * `failureMessage` (failure_message) is no longer written: fileView derives the message from
 * `failureReason`. A later migration may drop the column.
 */
export type FileRow = Awaited<ReturnType<FilesDb['file']['findUniqueOrThrow']>>;
/** A file with the fragments it is attached to. */
export type FileWithAttachments = FileRow & { attachments: Array<{ fragmentId: string }> };
