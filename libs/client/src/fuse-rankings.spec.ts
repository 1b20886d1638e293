import { describe, expect, it } from 'vitest';
import { fuseRankings } from './fuse-rankings.js';
import type { SearchHit } from './types.js';

const hit = (workspaceId: string, fragmentId: string, score: number): SearchHit => ({
  fragmentId,
  workspaceId,
  title: fragmentId,
  type: 'note',
  tags: [],
  snippet: '',
  score,
  matchedBy: [],
});

describe('fuseRankings', () => {
  it('interleaves lists by rank, whatever their scores, and keeps the limit', () => {
    const cloud = [hit('c', 'c1', 0.9), hit('c', 'c2', 0.8)];
    const leaf = [hit('l', 'l1', 0.01), hit('l', 'l2', 0.005)];
    expect(fuseRankings([cloud, leaf], 3).map((h) => h.fragmentId)).toEqual(['c1', 'l1', 'c2']);
  });

  it('adds up a hit found twice', () => {
    const a = [hit('w', 'x', 1), hit('w', 'y', 0.5)];
    const b = [hit('w', 'y', 1)];
    expect(fuseRankings([a, b], 10).map((h) => h.fragmentId)).toEqual(['y', 'x']);
  });
});
