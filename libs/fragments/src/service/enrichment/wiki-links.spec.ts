import { describe, expect, it } from 'vitest';
import { wikiLinks, withWikiLinks } from './wiki-links.js';

describe('wiki links', () => {
  it('finds [[links]], with aliases and headings, once each, never embeds', () => {
    const text = 'See [[Alpha]] and [[Beta|the beta]], [[Alpha#Plan]], ![[diagram.png]], [[ gamma ]] and [[alpha]].';
    expect(wikiLinks(text)).toEqual(['Alpha', 'Beta', 'gamma']);
    expect(wikiLinks('no links [here] or [[]]')).toEqual([]);
  });

  it('adds the note, the notes it links to and links_to relations to the graph, not a link to itself', () => {
    const graph = withWikiLinks({ entities: [], relations: [] }, 'Beta', 'About [[Alpha]] and [[Beta]].');
    expect(graph).toEqual({
      entities: [
        { kind: 'note', name: 'Beta' },
        { kind: 'note', name: 'Alpha' },
      ],
      relations: [
        { source: { kind: 'note', name: 'Beta' }, target: { kind: 'note', name: 'Alpha' }, kind: 'links_to' },
      ],
    });
    const none = { entities: [], relations: [] };
    expect(withWikiLinks(none, 'T', 'plain text')).toBe(none);
  });
});
