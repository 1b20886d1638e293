import type { FilesDb } from './files-database.js';

export type FileRow = Awaited<ReturnType<FilesDb['file']['findUniqueOrThrow']>>;
/** A file with the fragments it is attached to. */
export type FileWithAttachments = FileRow & { attachments: Array<{ fragmentId: string }> };
