import { sectionNotFound } from './fragment-errors.js';
import { frontmatterLength } from './frontmatter.js';

export type PatchOperation =
  { op: 'append' | 'prepend'; text: string } | { op: 'replaceSection'; heading: string; text: string };

/** Applies the operations in order to Markdown content. */
export function applyOperations(content: string, operations: readonly PatchOperation[]): string {
  return operations.reduce((current, operation) => applyOne(current, operation), content);
}

function applyOne(content: string, operation: PatchOperation): string {
  switch (operation.op) {
    case 'append':
      return content === '' || content.endsWith('\n') ? content + operation.text : `${content}\n${operation.text}`;
    case 'prepend': {
      // Frontmatter must stay first to remain frontmatter: prepend after it. A block that ends
      // the content without a newline gets one (in its own line-ending style), or the text
      // would be glued onto the closing fence and the block would stop being frontmatter.
      const at = frontmatterLength(content);
      const text = operation.text.endsWith('\n') ? operation.text : `${operation.text}\n`;
      const fence = content.slice(0, at);
      const close = at > 0 && !fence.endsWith('\n') ? (fence.includes('\r\n') ? '\r\n' : '\n') : '';
      return fence + close + text + content.slice(at);
    }
    case 'replaceSection':
      return replaceSection(content, operation.heading, operation.text);
  }
}

const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^\s*(```|~~~)/;

/**
 * Replaces the body under the first heading whose text equals `heading` (leading `#`s
 * optional), up to the next heading of the same or a higher level. Headings inside code
 * fences are not headings.
 */
export function replaceSection(content: string, heading: string, text: string): string {
  const wanted = heading.replace(/^#{1,6}[ \t]+/, '').trim();
  const lines = content.split('\n');
  let inFence = false;
  let start = -1;
  let level = 0;
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence) continue;
    const match = HEADING.exec(line);
    if (!match) continue;
    if (start < 0) {
      if (match[2]!.trim() === wanted) {
        start = i;
        level = match[1]!.length;
      }
    } else if (match[1]!.length <= level) {
      end = i;
      break;
    }
  }
  if (start < 0) throw sectionNotFound(heading);
  const body = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  const after = lines.slice(end);
  const bodyLines = body === '' ? [] : body.slice(0, -1).split('\n');
  // Keep one blank line before the next heading, as Markdown writers do.
  const gap = end < lines.length || content.endsWith('\n') ? [''] : [];
  return [...lines.slice(0, start + 1), ...bodyLines, ...gap, ...after].join('\n');
}
