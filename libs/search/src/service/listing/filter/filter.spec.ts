import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FilterError, filterToSql } from './index.js';

/** The parser and compiler alone (fast): every input either compiles or fails with a FilterError. */
describe('filter language', () => {
  const compileOrRefuse = (text: string) => {
    try {
      const sql = filterToSql(text);
      // Postgres refuses NUL in text: no value may carry one to the database.
      for (const value of sql.values) expect(String(value)).not.toContain('\u0000');
      return sql;
    } catch (error) {
      expect(error).toBeInstanceOf(FilterError);
      const { position } = error as FilterError;
      expect(position).toBeGreaterThanOrEqual(0);
      expect(position).toBeLessThanOrEqual(Math.max(text.length, 2000));
      return undefined;
    }
  };

  it('keeps every value out of the SQL text', () => {
    const sql = filterToSql(
      "title = 'x'' or 1=1 --' and tags has 'ai' and createdAt >= '2026-01-01' and not text ~ '50%_\\'",
    );
    expect(sql.sql).not.toMatch(/or 1=1|ai|2026|50%/);
    expect(sql.values).toEqual(["x' or 1=1 --", 'ai', '2026-01-01T00:00:00.000Z', '%50\\%\\_\\\\%']);
  });

  it('leaves comparisons that are never null bare, so their indexes serve them; nullable ones are coalesced', () => {
    const text = (t: string) => filterToSql(t).strings.join('$');
    // The GIN index on the lower-cased tags cannot serve a COALESCE around the test.
    expect(text("tags has 'AI'")).toBe('(f.tags_folded @> ARRAY[lower($)]::text[])');
    expect(text("createdAt >= '2026-01-01'")).not.toContain('COALESCE');
    expect(text("not summary = 'x'")).toBe('(NOT COALESCE((f.summary = $), false))');
  });

  it('never throws anything but FilterError, on random and structured input', () => {
    const token = fc.constantFrom(
      'title',
      'tags',
      'createdAt',
      'version',
      'id',
      'text',
      'key',
      'and',
      'or',
      'not',
      'has',
      'is',
      'null',
      '(',
      ')',
      '=',
      '!=',
      '~',
      '<',
      '>=',
      "'a'",
      "'2026-01-01'",
      '3',
      "'",
      '--',
      ';',
      'é',
      '🙂',
      "'\u0000'",
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.string({ unit: 'binary', maxLength: 100 }),
          fc.array(token, { maxLength: 40 }).map((t) => t.join(' ')),
        ),
        (text) => void compileOrRefuse(text),
      ),
      { numRuns: 5000 },
    );
  });

  it('refuses deep nesting without exhausting the stack', () => {
    for (const text of [
      '('.repeat(100_000),
      'not '.repeat(1000) + "title = 'a'",
      `${'('.repeat(500)}title = 'a'${')'.repeat(500)}`,
    ]) {
      expect(() => filterToSql(text)).toThrow(FilterError);
    }
  });

  it('counts the length limit and positions in characters: an astral character is one', () => {
    const refusal = (text: string) => {
      try {
        filterToSql(text);
      } catch (error) {
        return (error as FilterError).position;
      }
      throw new Error(`accepted: ${text}`);
    };
    const emoji = '\u{1F600}';
    // 1,010 characters (2,011 UTF-16 units) is within the limit.
    expect(filterToSql(`title = '${emoji.repeat(1000)}'`).values).toEqual([emoji.repeat(1000)]);
    expect(refusal(`title = '${emoji.repeat(1991)}'`)).toBe(2000);
    expect(refusal(`title ~ '${emoji.repeat(2)}' and foo = 'x'`)).toBe(17);
    expect(refusal(`title = '${emoji}' ${emoji}`)).toBe(12);
    expect(refusal(`title = '${emoji}`)).toBe(8);
    expect(() => filterToSql(`title = 'a' ${emoji}`)).toThrow(`unexpected character '${emoji}'`);
  });
});

describe('listing field names', () => {
  it('are the flagged fields of the whitelist', async () => {
    const { FIELDS } = await import('./fields.js');
    const { SELECTABLE_FIELDS, SORTABLE_FIELDS } = await import('../../../domain/listing-fields.js');
    expect(Object.keys(FIELDS).filter((name) => FIELDS[name]!.selectable)).toEqual(SELECTABLE_FIELDS);
    expect(Object.keys(FIELDS).filter((name) => FIELDS[name]!.sortable)).toEqual(SORTABLE_FIELDS);
  });
});
