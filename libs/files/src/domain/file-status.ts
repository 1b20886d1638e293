/** The states of a stored file (an upload still running, `uploading`, is not a file yet). */
export const FILE_STATUSES = ['processing', 'ready', 'failed', 'cancelled'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];
