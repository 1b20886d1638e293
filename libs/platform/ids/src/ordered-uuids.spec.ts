import { describe, expect, it } from 'vitest';
import { isUuid, orderedUuids } from './index.js';

describe('orderedUuids', () => {
  it('makes version 7 UUIDs that sort in the order given, with the time in front', () => {
    const at = Date.UTC(2026, 10, 27, 12, 0, 0, 123);
    const ids = orderedUuids(600, at);
    expect(new Set(ids).size).toBe(600);
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7'); // version
      expect('89ab').toContain(id[19]); // RFC 9562 variant
      expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
    }
    expect([...ids].sort()).toEqual(ids);
  });

  it('draws a new random start each time', () => {
    const [a] = orderedUuids(1, 0);
    const [b] = orderedUuids(1, 0);
    expect(a).not.toBe(b);
    expect(orderedUuids(0)).toEqual([]);
  });
});
