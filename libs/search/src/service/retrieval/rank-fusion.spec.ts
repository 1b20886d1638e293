import { describe, expect, it } from 'vitest';
import { fuseByReciprocalRank, RRF_K } from './rank-fusion.js';

describe('fuseByReciprocalRank', () => {
  it('ranks a fragment both retrievers found above ones only one found', () => {
    const fused = fuseByReciprocalRank({
      keyword: [{ fragmentId: 'a' }, { fragmentId: 'b' }],
      semantic: [{ fragmentId: 'c' }, { fragmentId: 'b' }],
    });
    expect(fused.map((h) => h.fragmentId)).toEqual(['b', 'a', 'c']);
    expect(fused[0]).toEqual({ fragmentId: 'b', score: 2 / (RRF_K + 2), matchedBy: ['keyword', 'semantic'] });
  });

  it('breaks ties by id so paging is deterministic', () => {
    const fused = fuseByReciprocalRank({ keyword: [{ fragmentId: 'z' }], semantic: [{ fragmentId: 'y' }] });
    expect(fused.map((h) => h.fragmentId)).toEqual(['y', 'z']);
  });
});
