/**
 * A small Markdown renderer for the embed widget that never produces HTML from its input: it
 * parses to a tree of element names and text, and the browser builds nodes with createElement
 * and textContent. So model output and fragment content (`<img onerror=...>`, `<script>`) can
 * only ever show as text. Paragraphs, headings, lists, fenced code, inline code, bold, italic
 * and http(s)/mailto links; anything else stays text. No imports: served to browsers as is.
 */

export type MdNode = string | { tag: string; href?: string; children: MdNode[] };

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

/** Inline spans: `code`, **bold**, *italic* / _italic_, [text](url). */
export function parseInline(text: string): MdNode[] {
  const out: MdNode[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push({ tag: 'code', children: [m[1]] });
    else if (m[2] !== undefined) out.push({ tag: 'strong', children: parseInline(m[2]) });
    else if (m[3] !== undefined || m[4] !== undefined) out.push({ tag: 'em', children: parseInline(m[3] ?? m[4]) });
    else if (SAFE_LINK.test(m[6])) out.push({ tag: 'a', href: m[6], children: parseInline(m[5]) });
    else out.push(m[0]);
    last = pattern.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Blocks, line by line. */
export function parseMarkdown(source: string): MdNode[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MdNode[] = [];
  let paragraph: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: MdNode[] } | undefined;
  const flushParagraph = () => {
    if (paragraph.length === 0) return;
    const children: MdNode[] = [];
    paragraph.forEach((line, i) => {
      if (i > 0) children.push({ tag: 'br', children: [] });
      children.push(...parseInline(line));
    });
    blocks.push({ tag: 'p', children });
    paragraph = [];
  };
  const flushList = () => {
    if (list) blocks.push({ tag: list.tag, children: list.items });
    list = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^```/.test(line)) {
      flushParagraph();
      flushList();
      const code: string[] = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) code.push(lines[i]);
      blocks.push({ tag: 'pre', children: [{ tag: 'code', children: [code.join('\n')] }] });
      continue;
    }
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    if (heading) {
      flushParagraph();
      flushList();
      blocks.push({ tag: `h${heading[1].length + 2}`, children: parseInline(heading[2]) });
    } else if (bullet || numbered) {
      flushParagraph();
      const tag = bullet ? 'ul' : 'ol';
      if (list && list.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push({ tag: 'li', children: parseInline((bullet ?? numbered)![1]) });
    } else if (!line.trim()) {
      flushParagraph();
      flushList();
    } else {
      flushList();
      paragraph.push(line);
    }
  }
  flushParagraph();
  flushList();
  return blocks;
}
