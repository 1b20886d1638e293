/**
 * Text formats are read as UTF-8 (invalid bytes become U+FFFD), and only as far as the text cap
 * needs: a UTF-16 code unit never takes more than 3 UTF-8 bytes, so 3 × `maxChars` bytes and one
 * more character give more than `maxChars` characters whenever the file has more.
 */
export function decodeText(bytes: Uint8Array, maxChars: number): string {
  const needed = 3 * maxChars + 4;
  return new TextDecoder('utf-8').decode(bytes.length > needed ? bytes.subarray(0, needed) : bytes);
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
