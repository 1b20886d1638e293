import type { FileKind } from '../../domain/file-kind.js';
import type { ExtractedText, ExtractionProgress } from './extracted-text.js';
import type { ExtractionLimits } from './extraction-limits.js';
import { htmlText } from './html-text.js';
import { decodeText, jsonText, textEncodingOf } from './plain-text.js';

/**
 * A file's text, by the kind its bytes were sniffed as (images and other files have none), in
 * Unicode NFC, cut to `maxTextChars`. Runs in the caller's thread: hostile input goes through
 * `runExtraction`, which runs this in a worker bounded in memory and time. Fails with an
 * ExtractionError.
 */
export async function extractText(
  bytes: Uint8Array,
  kind: FileKind,
  limits: ExtractionLimits,
  onProgress?: (progress: ExtractionProgress) => void,
): Promise<ExtractedText> {
  const { text: read, pages } = await fullText(bytes, kind, limits, onProgress);
  // Stored and searched in Unicode NFC, as search reads queries: a text written decomposed (`e`
  // then a combining accent, as macOS and some editors save it) is found by a query typed composed.
  const text = read.normalize('NFC');
  const truncated = text.length > limits.maxTextChars;
  return {
    text: truncated ? cut(text, limits.maxTextChars) : text,
    ...(pages === undefined ? {} : { pages }),
    truncated,
  };
}

async function fullText(
  bytes: Uint8Array,
  kind: FileKind,
  limits: ExtractionLimits,
  onProgress?: (progress: ExtractionProgress) => void,
): Promise<{ text: string; pages?: number }> {
  // The PDF and DOCX parsers are loaded only for their kind: importing both costs a fresh
  // worker thread a few hundred milliseconds, more than extracting a small file.
  switch (kind) {
    case 'pdf':
      return (await import('./pdf-text.js')).pdfText(bytes, limits, onProgress);
    case 'docx':
      return { text: await (await import('./docx-text.js')).docxText(bytes, limits) };
    case 'html':
      return { text: htmlText(new TextDecoder(textEncodingOf(bytes)).decode(bytes)) };
    case 'json':
      return { text: jsonText(bytes, limits.maxTextChars) };
    case 'markdown':
    case 'text':
    case 'csv':
      return { text: decodeText(bytes, limits.maxTextChars) };
    case 'image':
    case 'other':
      return { text: '' };
  }
}

/** The first `max` UTF-16 code units, one fewer rather than half of a surrogate pair. */
function cut(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
