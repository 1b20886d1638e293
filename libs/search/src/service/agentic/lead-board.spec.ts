import { describe, expect, it } from 'vitest';
import { LeadBoard } from './lead-board.js';

describe('lead board', () => {
  it('sums a fragment’s scores, lists each reason once, and takes its title from whichever retrieval had it', () => {
    const board = new LeadBoard();
    board.add({ id: 'a' }, 0.9, 'keyword match (kafka)');
    board.add({ id: 'b', title: 'Cluster setup' }, 0.2, 'mentions Kafka');
    board.add({ id: 'a', title: 'Event pipeline' }, 0.2, 'mentions Kafka');
    board.add({ id: 'a' }, 0.1, 'mentions Kafka');
    expect(board.size).toBe(2);
    expect(board.top(10)).toEqual([
      { fragmentId: 'a', title: 'Event pipeline', why: 'keyword match (kafka); mentions Kafka', score: 1.2 },
      { fragmentId: 'b', title: 'Cluster setup', why: 'mentions Kafka', score: 0.2 },
    ]);
  });

  it('orders equal scores by title then id, and keeps the first title it was given', () => {
    const board = new LeadBoard();
    board.add({ id: 'z', title: 'Alpha' }, 0.5, 'x');
    board.add({ id: 'y', title: 'Beta' }, 0.5, 'x');
    board.add({ id: 'x', title: 'Alpha' }, 0.5, 'x');
    board.add({ id: 'y', title: 'Renamed' }, 0, 'x');
    expect(board.top(2).map((l) => [l.fragmentId, l.title])).toEqual([
      ['x', 'Alpha'],
      ['z', 'Alpha'],
    ]);
    expect(board.top(3)[2]).toMatchObject({ fragmentId: 'y', title: 'Beta' });
  });
});
