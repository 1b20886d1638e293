/**
 * A vector as a Postgres array literal (`{0.1,-2,...}`), for a `::float4[]` cast in SQL: one text
 * parameter per vector instead of one per number. A number Postgres cannot store (NaN, Infinity)
 * is written as 0, so one bad component never fails the whole statement.
 */
export function realArrayLiteral(values: readonly number[]): string {
  return `{${values.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}}`;
}
