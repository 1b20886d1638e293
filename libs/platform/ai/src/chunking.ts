/** Chunking of long text (fragment content, extracted file text) for embeddings: by headings, then paragraphs, then sentences. */
export const CHUNK_TARGET_CHARS = 1_000;
export const CHUNK_OVERLAP_CHARS = 150;

/**
 * Splits `text` into chunks of about `target` characters. Sections start at Markdown
 * headings; a section is cut at paragraph boundaries (then sentence, then word boundaries
 * for a paragraph too long on its own). Each chunk after the first of a section starts with
 * the last `overlap` characters of the previous one, so a sentence cut in two is still found.
 * Short content is one chunk; empty content none.
 */
export function chunkText(text: string, target = CHUNK_TARGET_CHARS, overlap = CHUNK_OVERLAP_CHARS): string[] {
  const trimmed = text.trim();
  if (!trimmed) return [];
  if (trimmed.length <= target) return [trimmed];
  const chunks: string[] = [];
  for (const section of splitSections(trimmed)) {
    const pieces = section
      .split(/\n\s*\n/)
      .flatMap((p) => splitLong(p.trim(), target))
      .filter(Boolean);
    let current = '';
    for (const piece of pieces) {
      if (current && current.length + piece.length + 2 > target) {
        chunks.push(current);
        current = `${tail(current, overlap)}${piece}`;
      } else {
        current = current ? `${current}\n\n${piece}` : piece;
      }
    }
    if (current) chunks.push(current);
  }
  return chunks;
}

function splitSections(text: string): string[] {
  return text
    .split(/\n(?=#{1,6}\s)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A paragraph longer than the target, cut at sentence ends, else at spaces, else hard. */
function splitLong(paragraph: string, target: number): string[] {
  if (paragraph.length <= target) return [paragraph];
  const out: string[] = [];
  let rest = paragraph;
  while (rest.length > target) {
    const window = rest.slice(0, target);
    let cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('! '), window.lastIndexOf('? '));
    if (cut < target / 2) cut = window.lastIndexOf(' ');
    if (cut < target / 2) cut = target - 1;
    out.push(rest.slice(0, cut + 1).trim());
    rest = rest.slice(cut + 1).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** The end of a chunk to repeat at the start of the next, from a word boundary. */
function tail(chunk: string, overlap: number): string {
  if (overlap <= 0) return '';
  const start = chunk.length - overlap;
  if (start <= 0) return `${chunk} `;
  const space = chunk.indexOf(' ', start);
  return `${chunk.slice(space >= 0 ? space + 1 : start)}\n\n`;
}
