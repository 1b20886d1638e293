/** Longest stored name, in UTF-8 bytes: what most file systems accept for one path component. */
export const FILE_NAME_MAX_BYTES = 255;
/** A longer "extension" is just part of the name, and is cut with it. */
const EXTENSION_MAX_BYTES = 32;
const FALLBACK_NAME = 'file';

// C0 and C1 controls and DEL (NUL, CR, LF, escape sequences...).
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
// The characters Unicode says to render invisibly (Default_Ignorable_Code_Point): the
// bidirectional marks, overrides and isolates that can make `invoice\u202Efdp.exe` display as
// `invoiceexe.pdf`, and the invisible ones (zero-width space, word joiner, BOM, soft hyphen,
// U+034F, the Hangul fillers, invisible operators, tag characters...) that make `pay\u200Bpal`
// look like another name; and the interlinear annotation marks (U+FFF9-FFFB), invisible too.
// Some are kept where they are seen (keepIgnorable).
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}\ufff9-\ufffb]/gu;
const VARIATION_SELECTOR = /^[\ufe00-\ufe0f\u{e0100}-\u{e01ef}\u180b-\u180d\u180f]$/u;
const TAG = /^[\u{e0020}-\u{e007f}]$/u;
// The zero-width joiner too, but where it joins two emoji into one (👩‍👧): there it is seen.
const STRAY_JOINER =
  /(?<!\p{Extended_Pictographic}[\u{fe0f}\u{1f3fb}-\u{1f3ff}]?)\u200d|\u200d(?!\p{Extended_Pictographic})/gu;
// Windows device names: `CON.txt` or `aux` opens the console or a port there, not a file.
const RESERVED_DEVICE = /^(?:CON|PRN|AUX|NUL|COM[1-9\u00b9\u00b2\u00b3]|LPT[1-9\u00b9\u00b2\u00b3])$/i;
// A lone surrogate cannot be stored or sent as UTF-8.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The name a file is stored and shown under: its last path component (a client's `C:\tmp\a.txt`
 * or `../../etc/passwd` keeps `a.txt` and `passwd`), without control, invisible or direction
 * characters, hidden-file or `..` dots at the start or runs of whitespace, a Windows device name
 * (`CON.txt`, `aux`) prefixed with `_`, at most 255 UTF-8 bytes (cut between characters, keeping
 * the extension), and `file` when nothing is left.
 */
export function safeFileName(input: string): string {
  const lastComponent = input.slice(Math.max(input.lastIndexOf('/'), input.lastIndexOf('\\')) + 1);
  const name = lastComponent
    .replace(LONE_SURROGATE, '\ufffd')
    .normalize('NFC') // macOS sends decomposed names; one form keeps equal names equal
    .replace(CONTROL_CHARACTERS, '')
    .replace(IGNORABLE, (char, at: number, whole: string) => (keepIgnorable(char, at, whole) ? char : ''))
    .replace(STRAY_JOINER, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+/, '');
  return truncateKeepingExtension(notADevice(name)) || FALLBACK_NAME;
}

/**
 * The default-ignorable characters a name keeps, because there they change what is seen: the
 * zero-width non-joiner (U+200C; Persian and Indic names are spelt with it), the zero-width
 * joiner (STRAY_JOINER then keeps it only between emoji), a variation selector after a character
 * that is not plain ASCII (an emoji's U+FE0F, a CJK ideograph's variant, Mongolian's) or in a
 * keycap (`1\uFE0F\u20E3`), and the tag characters of a flag's tag sequence (🏴 of England).
 */
function keepIgnorable(char: string, at: number, whole: string): boolean {
  if (char === '\u200c' || char === '\u200d') return true;
  const before = whole.slice(0, at);
  if (VARIATION_SELECTOR.test(char)) {
    const previous = /[^]$/u.exec(before)?.[0] ?? '';
    if (/^[#*0-9]$/.test(previous)) return whole.startsWith('\u20e3', at + char.length);
    return previous > '\u007f' && !/^[\s\p{Default_Ignorable_Code_Point}]$/u.test(previous);
  }
  if (TAG.test(char)) {
    return (
      /\u{1f3f4}[\u{e0020}-\u{e007e}]*$/u.test(before) && /^[\u{e0020}-\u{e007e}]*\u{e007f}/u.test(whole.slice(at))
    );
  }
  return false;
}

/** `_CON.txt` for `CON.txt`: Windows reads the part before the first dot, trailing spaces ignored. */
function notADevice(name: string): string {
  const stem = name.split('.')[0].trimEnd();
  return RESERVED_DEVICE.test(stem) ? `_${name}` : name;
}

function truncateKeepingExtension(name: string): string {
  if (utf8Bytes(name) <= FILE_NAME_MAX_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot) : '';
  if (extension && utf8Bytes(extension) <= EXTENSION_MAX_BYTES) {
    const stem = cutToBytes(name.slice(0, dot), FILE_NAME_MAX_BYTES - utf8Bytes(extension)).trimEnd();
    return stem + extension;
  }
  return cutToBytes(name, FILE_NAME_MAX_BYTES).trimEnd();
}

/**
 * The longest prefix of whole graphemes (an emoji with its modifiers is one) within `max` bytes;
 * a first grapheme longer than that (stacked combining marks) is cut between code points.
 */
function cutToBytes(text: string, max: number): string {
  let cut = '';
  let bytes = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = utf8Bytes(segment);
    if (bytes + size <= max) {
      cut += segment;
      bytes += size;
      continue;
    }
    if (!cut) for (const char of segment) if ((bytes += utf8Bytes(char)) <= max) cut += char;
    break;
  }
  return cut;
}

/**
 * A Content-Disposition header value for a download: `filename` is a plain-ASCII fallback
 * (accents dropped, other non-ASCII characters, quotes, backslashes and `%` replaced) for old
 * clients, named like a stored name (a Windows device name gets its `_`), `filename*` the exact
 * name (RFC 6266 / RFC 5987). The name goes through
 * `safeFileName` first, so CR/LF and other controls can never reach the header.
 */
export function contentDisposition(name: string, disposition: 'attachment' | 'inline'): string {
  const safe = safeFileName(name);
  // Folding to ASCII can make a device name (`ｃｏｎ.txt` is `con.txt`): it gets the `_` too.
  const fallback = notADevice(
    safe
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^\x20-\x7e]|["\\%]/gu, '_'),
  );
  // encodeURIComponent leaves ' ( ) * alone, which RFC 5987's attr-char does not allow.
  const encoded = encodeURIComponent(safe).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const type = disposition === 'inline' ? 'inline' : 'attachment'; // never echo an untyped caller's value
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
