import { describe, expect, it } from 'vitest';
import { realArrayLiteral } from './real-array-literal.js';

describe('realArrayLiteral', () => {
  it('writes the numbers as a Postgres array literal, non-finite ones as 0', () => {
    expect(realArrayLiteral([0.5, -2, 1e-7])).toBe('{0.5,-2,1e-7}');
    expect(realArrayLiteral([NaN, Infinity, -Infinity, 3])).toBe('{0,0,0,3}');
    expect(realArrayLiteral([])).toBe('{}');
  });
});
