import { getDocumentProxy } from 'unpdf';
import { ExtractionError } from './extraction-errors.js';
import type { ExtractionLimits } from './extraction-limits.js';
import type { ExtractionProgress } from './extracted-text.js';
import { assertPdfStreamsWithinLimits } from './pdf-stream-guard.js';

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/**
 * A PDF's text, page by page so progress can be reported. A PDF with more than `maxPages` pages
 * is refused (`too_many_pages`) from its page count, before any page is read: extracting only
 * the first pages would index a document silently cut short. Reading stops once the text passes
 * `maxTextChars` (the caller cuts it and marks it truncated); time is bounded by the worker.
 */
export async function pdfText(
  bytes: Uint8Array,
  limits: ExtractionLimits,
  onProgress?: (progress: ExtractionProgress) => void,
): Promise<{ text: string; pages: number }> {
  // Before pdf.js, which would hold a flate bomb's decoded bytes whole (outside the heap limit).
  await assertPdfStreamsWithinLimits(bytes, limits.maxUnpackedBytes);
  const pdf = await openPdf(bytes);
  try {
    const pagesTotal = pdf.numPages;
    if (pagesTotal > limits.maxPages)
      throw new ExtractionError(
        'too_many_pages',
        `The PDF has ${pagesTotal} pages; at most ${limits.maxPages} are read.`,
      );
    const pages: string[] = [];
    let chars = 0;
    onProgress?.({ pagesDone: 0, pagesTotal });
    for (let number = 1; number <= pagesTotal && chars <= limits.maxTextChars; number++) {
      const text = await pageText(pdf, number);
      pages.push(text);
      chars += text.length;
      onProgress?.({ pagesDone: number, pagesTotal });
    }
    return { text: pages.join('\n\n'), pages: pagesTotal };
  } finally {
    await pdf.loadingTask.destroy();
  }
}

async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  try {
    // pdf.js takes the buffer it is given (detaches it): it gets a copy, the caller keeps its bytes.
    return await getDocumentProxy(bytes.slice(), { verbosity: 0 });
  } catch (error) {
    throw asExtractionError(error);
  }
}

async function pageText(pdf: PdfDocument, number: number): Promise<string> {
  try {
    const page = await pdf.getPage(number);
    const content = await page.getTextContent();
    page.cleanup();
    return content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
  } catch (error) {
    throw asExtractionError(error);
  }
}

function asExtractionError(error: unknown): ExtractionError {
  if (error instanceof Error && error.name === 'PasswordException')
    return new ExtractionError('unsupported', 'The PDF is password-protected.', { cause: error });
  const detail = error instanceof Error ? error.message : String(error);
  return new ExtractionError('malformed', `The PDF cannot be read: ${detail}`, { cause: error });
}
