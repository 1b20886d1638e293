/** A file's text, as extraction hands it to indexing. */
export interface ExtractedText {
  text: string;
  /** A PDF's page count (all of them, even when the text was cut). */
  pages?: number;
  /** The text was cut to `maxTextChars`. */
  truncated: boolean;
}

/** Reported as pages are read (PDF only); `pagesTotal` once it is known. */
export interface ExtractionProgress {
  pagesDone: number;
  pagesTotal?: number;
}
