import { normalizeEntityName, type ExtractedEntity, type GraphExtraction } from '@kw/platform-ai';

/** `[[Target]]`, `[[Target|alias]]`, `[[Target#heading]]`; not `![[embeds]]`. */
const WIKI_LINK = /(?<!!)\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g;
const MAX_LINKS = 100;

/** The notes a Markdown text links to, wiki style (Obsidian and similar tools), in order, once each. */
export function wikiLinks(content: string): string[] {
  const targets = new Map<string, string>();
  for (const match of content.matchAll(WIKI_LINK)) {
    const target = match[1]!.trim();
    const key = normalizeEntityName(target);
    if (key && !targets.has(key)) targets.set(key, target);
    if (targets.size >= MAX_LINKS) break;
  }
  return [...targets.values()];
}

/**
 * Adds a fragment's wiki links to its graph: the fragment as a `note` entity (its title), each
 * linked note as one, and a `links_to` relation from it to each. Part of the graph step, so a
 * re-enrichment keeps them.
 */
export function withWikiLinks(graph: GraphExtraction, title: string, content: string): GraphExtraction {
  const own = normalizeEntityName(title);
  const links = wikiLinks(content).filter((t) => normalizeEntityName(t) !== own);
  if (links.length === 0) return graph;
  const self: ExtractedEntity = { kind: 'note', name: title.trim() };
  const targets = links.map((name): ExtractedEntity => ({ kind: 'note', name }));
  return {
    entities: [...graph.entities, self, ...targets],
    relations: [...graph.relations, ...targets.map((target) => ({ source: self, target, kind: 'links_to' }))],
  };
}
