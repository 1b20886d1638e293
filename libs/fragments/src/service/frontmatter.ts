import { parse } from 'yaml';

const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The length of the frontmatter block at the start of the content (0 when there is none). */
export function frontmatterLength(content: string): number {
  return FRONTMATTER.exec(content)?.[0].length ?? 0;
}

/**
 * The content's YAML frontmatter as an object. The content itself keeps it verbatim; a
 * block that is absent, invalid or not a mapping gives null, never an error.
 */
export function parseFrontmatter(content: string): Record<string, unknown> | null {
  const match = FRONTMATTER.exec(content);
  if (!match) return null;
  try {
    const value: unknown = parse(match[1]!, { schema: 'core', maxAliasCount: 10 });
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (JSON.parse(JSON.stringify(value)) as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
