/**
 * Text formats are read as UTF-8 (invalid bytes become U+FFFD), or as UTF-16 when they begin
 * with its byte order mark (Windows Notepad's "Unicode"), and only as far as the text cap needs:
 * a UTF-16 code unit never takes more than 3 UTF-8 bytes (2 in UTF-16), so that many bytes per
 * character and one more character give more than `maxChars` characters whenever the file has
 * more. The byte order mark itself is not text.
 */
export function decodeText(bytes: Uint8Array, maxChars: number): string {
  const encoding = textEncodingOf(bytes);
  const needed = (encoding === 'utf-8' ? 3 : 2) * maxChars + 4;
  return new TextDecoder(encoding).decode(bytes.length > needed ? bytes.subarray(0, needed) : bytes);
}

/** UTF-16 (little or big endian) when the bytes begin with its byte order mark, else UTF-8. */
export function textEncodingOf(bytes: Uint8Array): 'utf-8' | 'utf-16le' | 'utf-16be' {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

/** JSON pretty-printed, one value per line, when it parses within the cap; as written otherwise. */
export function jsonText(bytes: Uint8Array, maxChars: number): string {
  const text = decodeText(bytes, maxChars);
  if (text.length > maxChars) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text; // not JSON after all, or nested too deep to print
  }
}
