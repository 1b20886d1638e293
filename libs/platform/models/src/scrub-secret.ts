/**
 * Text a provider sends back (an error message passed on to the caller, or logged) may quote
 * the key it was sent: whole, as a long piece (a prefix of it), encoded (base64, as in a
 * Basic credential, URL encoding and hex), or reversed (a cheap disguise a model can be asked for). Every run of at least SCRUB_MIN_RUN characters of the
 * key or of one of those forms becomes `***`. Shorter pieces are left: providers' own
 * messages show a key's first few and last four characters (`sk-proj-****abcd`), and a short
 * prefix such as `sk-proj-` is shared by every key. A key shorter than that is scrubbed whole.
 */
export const SCRUB_MIN_RUN = 12;

/** Shortest key scrubbed at all: below it, any text would match. */
const MIN_SECRET_LENGTH = 4;

export function scrubSecret(text: string, secret: string | undefined): string {
  if (!text || !secret || secret.length < MIN_SECRET_LENGTH) return text;
  const hidden = new Uint8Array(text.length);
  let any = markRuns(text, secret, Math.min(secret.length, SCRUB_MIN_RUN), hidden);
  // An encoding shorter than a run is too short to tell from other text.
  for (const form of encodedForms(secret)) any = markRuns(text, form, SCRUB_MIN_RUN, hidden) || any;
  if (!any) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!hidden[i]) out += text[i];
    else if (i === 0 || !hidden[i - 1]) out += '***';
  }
  return out;
}

/**
 * The key's encodings (URL, base64 and base64url, hex in lower and upper case), and the key reversed. Base64 depends on where the key starts within a 3-byte group (a
 * `user:key` pair, `Bearer key`...): for each of the three offsets, the characters that
 * depend on the key alone.
 */
function encodedForms(secret: string): Set<string> {
  const bytes = Buffer.from(secret, 'utf8');
  const hex = bytes.toString('hex');
  const forms = new Set<string>([
    encodeURIComponent(secret),
    bytes.toString('base64'),
    [...secret].reverse().join(''),
    hex,
    hex.toUpperCase(),
  ]);
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = offset === 0 ? 0 : 4; // the first group mixes in the bytes before the key
    const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 4; // and the last, those after
    if (end > start) forms.add(encoded.slice(start, end));
  }
  for (const form of [...forms]) forms.add(form.replace(/\+/g, '-').replace(/\//g, '_')); // base64url
  return forms;
}

/** Marks in `hidden` every place where `run` consecutive characters of `form` occur in `text`. */
function markRuns(text: string, form: string, run: number, hidden: Uint8Array): boolean {
  let found = false;
  for (let from = 0; from + run <= form.length; from++) {
    const piece = form.slice(from, from + run);
    for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, at + 1)) {
      hidden.fill(1, at, at + run);
      found = true;
    }
  }
  return found;
}
