import { fileTypeFromBuffer } from 'file-type';

export const FILE_KINDS = ['pdf', 'docx', 'html', 'markdown', 'text', 'csv', 'json', 'image', 'other'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export interface SniffedFileKind {
  kind: FileKind;
  mimeType: string;
}

/** How much of the file `sniffFileKind` needs: signatures, a DOCX's first entries, a text's start. */
export const SNIFF_HEAD_BYTES = 4_100; // file-type's own detection size

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const TEXT_MIME: Record<TextKind, string> = {
  html: 'text/html',
  markdown: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  text: 'text/plain',
};
type TextKind = 'html' | 'markdown' | 'csv' | 'json' | 'text';

// Maps, not object literals: a name like `x.constructor` must not find Object.prototype's.
const TEXT_KIND_BY_EXTENSION = new Map<string, TextKind>([
  ['html', 'html'],
  ['htm', 'html'],
  ['xhtml', 'html'],
  ['md', 'markdown'],
  ['markdown', 'markdown'],
  ['csv', 'csv'],
  ['json', 'json'],
  ['txt', 'text'],
  ['text', 'text'],
]);
const TEXT_KIND_BY_MIME = new Map<string, TextKind>([
  ['text/html', 'html'],
  ['application/xhtml+xml', 'html'],
  ['text/markdown', 'markdown'],
  ['text/x-markdown', 'markdown'],
  ['text/csv', 'csv'],
  ['application/json', 'json'],
  ['text/plain', 'text'],
]);

/**
 * What a file is, from its first bytes (`head`, about SNIFF_HEAD_BYTES): a signature file-type
 * knows decides (a PDF named `.txt` is a PDF; a zip that is not a DOCX is `other`), and the
 * declared name and MIME type are never trusted over it. Text formats have no signature: valid
 * UTF-8 (or UTF-16 after its byte order mark) without NUL is text, and then the extension, else the declared type, else the content
 * (`<!doctype html`, `<html`, a leading `{` or `[`) says which; anything else is `other`.
 */
export async function sniffFileKind(
  head: Uint8Array,
  declaredName: string,
  declaredMime: string,
): Promise<SniffedFileKind> {
  const detected = await fileTypeFromBuffer(head);
  // file-type also recognises a few text formats (XML, iCalendar...): those are read as text below.
  if (detected && !isTextMime(detected.mime)) {
    if (detected.mime === 'application/pdf') return { kind: 'pdf', mimeType: detected.mime };
    if (detected.mime === DOCX_MIME) return { kind: 'docx', mimeType: detected.mime };
    if (detected.mime.startsWith('image/')) return { kind: 'image', mimeType: detected.mime };
    return { kind: 'other', mimeType: detected.mime };
  }
  const text = decodeTextHead(head);
  if (text === undefined) return { kind: 'other', mimeType: 'application/octet-stream' };
  const kind = textKindByName(declaredName, declaredMime) ?? textKindByContent(text);
  return { kind, mimeType: TEXT_MIME[kind] };
}

const isTextMime = (mime: string): boolean => mime.startsWith('text/') || mime === 'application/xml';

/**
 * The head as text, or undefined when it is not text: UTF-16 when it begins with that byte order
 * mark (little or big endian), else UTF-8; not well-formed, or holding a NUL, it is binary. Other
 * encodings (Latin-1, Windows-1252...) cannot be told from binary or from each other without
 * guessing: not text (docs/files.md).
 */
function decodeTextHead(head: Uint8Array): string | undefined {
  const utf16 =
    head[0] === 0xff && head[1] === 0xfe ? 'utf-16le' : head[0] === 0xfe && head[1] === 0xff ? 'utf-16be' : '';
  if (!utf16 && head.includes(0)) return undefined;
  try {
    // `stream` tolerates a character cut in two at the end of the head.
    const text = new TextDecoder(utf16 || 'utf-8', { fatal: true }).decode(head, { stream: true });
    return text.includes('\0') ? undefined : text;
  } catch {
    return undefined;
  }
}

function textKindByName(name: string, mime: string): TextKind | undefined {
  const dot = name.lastIndexOf('.');
  const extension = dot >= 0 ? name.slice(dot + 1).toLowerCase() : '';
  return TEXT_KIND_BY_EXTENSION.get(extension) ?? TEXT_KIND_BY_MIME.get(mime.split(';')[0].trim().toLowerCase());
}

function textKindByContent(text: string): TextKind {
  const start = text.trimStart().slice(0, 64).toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'html';
  if (start.startsWith('{') || start.startsWith('[')) return 'json';
  return 'text';
}
