import { decodeHtmlEntities } from './html-entities.js';

/** Elements whose content is never shown as text. */
const HIDDEN_CONTENT = new Set(['script', 'style', 'noscript', 'template']);
/** Elements that start or end a line of text. */
const BLOCKS = new Set(
  (
    'address article aside blockquote body br caption dd details dialog div dl dt fieldset figcaption figure ' +
    'footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html li main nav ol p pre section summary table tbody ' +
    'tfoot thead title tr ul'
  ).split(' '),
);
const CELLS = new Set(['td', 'th']);

/**
 * The visible text of an HTML document: scripts, styles, comments and tags dropped, entities
 * decoded, block elements as line breaks and, as a browser does, the source's line breaks as
 * spaces except inside `<pre>`. One linear pass, with no regular expression that could backtrack
 * on hostile markup; entities are decoded per text run, so an escaped `&lt;script&gt;` stays text.
 */
export function htmlText(html: string): string {
  const parts: string[] = [];
  let preDepth = 0;
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    const run = decodeHtmlEntities(html.slice(at, open < 0 ? html.length : open));
    parts.push(preDepth > 0 ? run : run.replace(/\s+/g, ' '));
    if (open < 0) break;
    const tag = readMarkup(html, open);
    at = tag.end;
    if (tag.name === 'pre') preDepth = Math.max(0, preDepth + (tag.closing ? -1 : 1));
    if (tag.text) parts.push(tag.text);
  }
  return parts
    .join('')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

interface Markup {
  /** Where text resumes. */
  end: number;
  name?: string;
  closing?: boolean;
  /** What the markup stands for in the text: a line break, a space, a lone `<`. */
  text?: string;
}

/** The markup that starts at `open` (a `<`): a comment, a declaration, a tag with its hidden content, or a plain `<`. */
function readMarkup(html: string, open: number): Markup {
  if (html.startsWith('<!--', open)) return { end: after(html, '-->', open + 4) };
  if (html[open + 1] === '!' || html[open + 1] === '?') return { end: after(html, '>', open + 2) }; // doctype, CDATA, PI
  const closing = html[open + 1] === '/';
  const nameStart = open + (closing ? 2 : 1);
  const name = /^[a-zA-Z][a-zA-Z0-9:-]*/.exec(html.slice(nameStart, nameStart + 64))?.[0].toLowerCase();
  if (!name) return { end: open + 1, text: '<' };
  const text = BLOCKS.has(name) ? '\n' : CELLS.has(name) ? ' ' : undefined;
  let end = endOfTag(html, nameStart + name.length);
  if (!closing && HIDDEN_CONTENT.has(name)) {
    const close = new RegExp(`</${name}[\\s/>]`, 'ig'); // name is one of HIDDEN_CONTENT's
    close.lastIndex = end;
    const found = close.exec(html);
    end = found ? after(html, '>', found.index) : html.length;
  }
  return { end, name, closing, text };
}

/** Just past the tag's `>`, skipping quoted attribute values (which may contain `>`). */
function endOfTag(html: string, from: number): number {
  let afterEquals = false;
  for (let at = from; at < html.length; at++) {
    const char = html[at];
    if (char === '>') return at + 1;
    if (afterEquals && (char === '"' || char === "'")) {
      const quote = html.indexOf(char, at + 1);
      if (quote < 0) return html.length;
      at = quote;
      afterEquals = false;
    } else if (char === '=') afterEquals = true;
    else if (!/\s/.test(char)) afterEquals = false;
  }
  return html.length;
}

function after(html: string, marker: string, from: number): number {
  const found = html.indexOf(marker, from);
  return found < 0 ? html.length : found + marker.length;
}
