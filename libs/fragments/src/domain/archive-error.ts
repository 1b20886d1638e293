/** Where an archive is damaged: the entry, and the line for NDJSON (1-based). */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';

  constructor(
    message: string,
    readonly entry?: string,
    readonly line?: number,
  ) {
    super(entry ? `${entry}${line ? ` line ${line}` : ''}: ${message}` : message);
  }
}
