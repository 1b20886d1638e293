import { describe, expect, it } from 'vitest';
import { BuiltinAiProvider } from './builtin-provider.js';
import { BUILTIN_EMBEDDING_DIMENSION, cosine } from './feature-hashing.js';
import { extractGraphByPatterns } from './pattern-entities.js';

const ai = new BuiltinAiProvider();

describe('built-in AI provider', () => {
  it('embeds deterministically into a fixed, L2-normalised dimension', async () => {
    const [a, b] = await ai.embed(['Postgres stores the vectors', 'Postgres stores the vectors']);
    expect(a).toHaveLength(BUILTIN_EMBEDDING_DIMENSION);
    expect(a).toEqual(b);
    expect(Math.sqrt(a.reduce((s, v) => s + v * v, 0))).toBeCloseTo(1, 6);
    const [empty] = await ai.embed(['']);
    expect(empty.every((v) => v === 0)).toBe(true);
  });

  it('puts similar texts closer than unrelated ones', async () => {
    const [query, similar, unrelated] = await ai.embed([
      'How do I configure the PostgreSQL database connection pool?',
      'Configuring the connection pool of a Postgres database',
      'My grandmother bakes an apple pie every Sunday afternoon',
    ]);
    expect(cosine(query, similar)).toBeGreaterThan(cosine(query, unrelated) + 0.2);
  });

  it('summarises extractively: whole sentences of the text, the central ones first in text order', async () => {
    const text =
      'Vector search finds notes by meaning. The weather was nice yesterday. Vector search uses embeddings of each note. ' +
      'Embeddings for vector search are computed when a note is saved. Lunch was pasta.';
    const summary = await ai.summarize(text);
    expect(summary).toContain('Vector search finds notes by meaning.');
    expect(summary).not.toContain('Lunch was pasta');
    for (const sentence of summary.split(/(?<=\.)\s+/)) expect(text).toContain(sentence);
    expect(await ai.summarize('Short note.')).toBe('Short note.');
  });

  it('tags with hashtags first, then the most frequent content words, without stop words', async () => {
    const tags = await ai.generateTags(
      '#release notes: the deployment of the deployment pipeline. Pipeline runs deployment checks.',
      3,
    );
    expect(tags).toEqual(['release', 'deployment', 'pipeline']);
  });

  it('extracts entities by pattern and links those of one paragraph', () => {
    const graph = extractGraphByPatterns(
      'Ada Lovelace wrote to @babbage about the Analytical Engine, see https://example.org/notes and mail ' +
        'ada@example.org. #history\n\nWe use TypeScript and PostgreSQL.',
    );
    const names = graph.entities.map((e) => `${e.kind}:${e.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'name:Ada Lovelace',
        'handle:@babbage',
        'name:Analytical Engine',
        'url:https://example.org/notes',
        'email:ada@example.org',
        'hashtag:#history',
        'technology:TypeScript',
        'technology:PostgreSQL',
      ]),
    );
    expect(names.filter((n) => n.startsWith('handle:'))).toEqual(['handle:@babbage']);
    const rel = (a: string, b: string) =>
      graph.relations.some((r) => [r.source.name, r.target.name].sort().join('|') === [a, b].sort().join('|'));
    expect(rel('Ada Lovelace', '@babbage')).toBe(true);
    expect(rel('TypeScript', 'PostgreSQL')).toBe(true);
    expect(rel('Ada Lovelace', 'TypeScript')).toBe(false);
  });
});
