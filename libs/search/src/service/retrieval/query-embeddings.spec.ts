import { describe, expect, it } from 'vitest';
import { QueryEmbeddings } from './query-embeddings.js';

describe('query embeddings', () => {
  const counting = () => {
    const asked: string[] = [];
    return {
      asked,
      embed: async (query: string) => {
        asked.push(query);
        if (query === 'boom') throw new Error('model down');
        return [query.length, 1];
      },
    };
  };

  it('embeds a query once while it is fresh, then again', async () => {
    const model = counting();
    const cache = new QueryEmbeddings(model.embed, { limit: 10, ttlMs: 1_000 });
    expect(await cache.of('tea', 0)).toEqual([3, 1]);
    expect(await cache.of('tea', 999)).toEqual([3, 1]);
    expect(model.asked).toEqual(['tea']);
    await cache.of('tea', 1_000);
    expect(model.asked).toEqual(['tea', 'tea']);
  });

  it('keeps the most recently used queries up to its limit', async () => {
    const model = counting();
    const cache = new QueryEmbeddings(model.embed, { limit: 2, ttlMs: 60_000 });
    await cache.of('a', 0);
    await cache.of('b', 0);
    await cache.of('a', 1); // a is now the most recent
    await cache.of('c', 2); // b goes
    model.asked.length = 0;
    await cache.of('a', 3);
    await cache.of('c', 3);
    expect(model.asked).toEqual([]);
    await cache.of('b', 4);
    expect(model.asked).toEqual(['b']);
  });

  it('keeps no failure: the next search asks the model again', async () => {
    const model = counting();
    const outcomes: string[] = [];
    const cache = new QueryEmbeddings(model.embed, { observe: (o) => outcomes.push(o) });
    await expect(cache.of('boom')).rejects.toThrow('model down');
    await expect(cache.of('boom')).rejects.toThrow('model down');
    expect(model.asked).toEqual(['boom', 'boom']);
    await cache.of('tea');
    await cache.of('tea');
    expect(outcomes).toEqual(['failed', 'failed', 'model', 'reused']);
  });
});
