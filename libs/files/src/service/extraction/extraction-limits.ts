/** Bounds on the work and memory one file's text extraction may take. */
export interface ExtractionLimits {
  /** A PDF with more pages is refused (`too_many_pages`) before any page is read. */
  maxPages: number;
  /**
   * Sum of a DOCX's declared uncompressed entry sizes, beyond which it is refused
   * (`archive_too_large`); and what a PDF's compressed streams may inflate to, one image or the
   * rest together (`too_much_memory`).
   */
  maxUnpackedBytes: number;
  /**
   * A DOCX whose main document holds more XML is refused (`archive_too_large`) before it is
   * inflated. Below `maxUnpackedBytes`: reading it is a scan (no DOM), about 30 MiB/s of dense
   * markup, so this bounds the CPU of one DOCX to a few seconds (docs/files.md, DOCX text).
   */
  maxDocxXmlBytes: number;
  /** Longer text is cut to this many characters (`truncated: true`). */
  maxTextChars: number;
  /** Wall-clock time of one extraction, worker start-up included (`timeout`). */
  timeoutMs: number;
  /** JavaScript heap of the extraction worker (`too_much_memory` when exceeded). */
  maxOldGenerationSizeMb: number;
}

export const DEFAULT_EXTRACTION_LIMITS: Readonly<ExtractionLimits> = Object.freeze({
  maxPages: 2_000,
  maxUnpackedBytes: 200 * 1024 * 1024,
  maxDocxXmlBytes: 64 * 1024 * 1024,
  maxTextChars: 5_000_000,
  timeoutMs: 60_000,
  maxOldGenerationSizeMb: 256,
});
