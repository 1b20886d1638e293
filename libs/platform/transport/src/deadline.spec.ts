import { describe, expect, it } from 'vitest';
import { DEADLINE_HEADER, lateBy, withDeadline } from './deadline.js';

describe('request deadlines', () => {
  it("stamps the caller's deadline and keeps the other headers", () => {
    const headers = withDeadline({ 'kw-request-id': 'r1' }, 1_500, 1_000_000);
    expect(headers).toEqual({ 'kw-request-id': 'r1', [DEADLINE_HEADER]: '1001500' });
  });

  it('counts a request late only past its deadline plus the grace', () => {
    const headers = { [DEADLINE_HEADER]: '1000' };
    expect(lateBy(headers, 200, 1_000)).toBeUndefined();
    expect(lateBy(headers, 200, 1_200)).toBeUndefined();
    expect(lateBy(headers, 200, 1_201)).toBe(1);
    expect(lateBy(headers, 0, 5_000)).toBe(4_000);
  });

  it('handles a request without a deadline, or with a malformed one, as in time', () => {
    for (const raw of [undefined, '', 'soon', '-5', '1e3', '99999999999999999999'])
      expect(lateBy(raw === undefined ? {} : { [DEADLINE_HEADER]: raw }, 0, Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  it('stamps nothing for a caller that waits for ever', () => {
    expect(withDeadline({}, Number.POSITIVE_INFINITY)).toEqual({});
  });
});
