/**
 * A piece of SQL with its bound values, built without a database client: the filter compiler
 * and the field whitelist produce these, and persistence/ turns them into a statement
 * (listing.repository.ts). Text comes only from constants of this folder; every value taken
 * from a request is a value here, bound as a parameter, never text.
 */
export class SqlFragment {
  /** The text around the values: one more string than values. */
  readonly strings: readonly string[];
  /** Bound values, in order (nested fragments are flattened into their place). */
  readonly values: readonly unknown[];

  constructor(strings: readonly string[], values: readonly unknown[]) {
    const outStrings = [strings[0] ?? ''];
    const outValues: unknown[] = [];
    values.forEach((value, i) => {
      const after = strings[i + 1] ?? '';
      if (value instanceof SqlFragment) {
        outStrings[outStrings.length - 1] += value.strings[0];
        outValues.push(...value.values);
        outStrings.push(...value.strings.slice(1));
        outStrings[outStrings.length - 1] += after;
      } else {
        outValues.push(value);
        outStrings.push(after);
      }
    });
    this.strings = outStrings;
    this.values = outValues;
  }

  /** The text with Postgres placeholders ($1, $2...), for tests and logs. */
  get sql(): string {
    return this.strings.reduce((text, part, i) => `${text}$${i}${part}`);
  }
}

/** Tagged template: `sql\`(${column} = ${value})\`` (a nested SqlFragment is inlined, anything else bound). */
export function sql(strings: readonly string[], ...values: unknown[]): SqlFragment {
  return new SqlFragment([...strings], values);
}

/** Constant SQL text (a column, an operator): never text from a request. */
export const raw = (text: string): SqlFragment => new SqlFragment([text], []);

/** The fragments one after the other, separated by `separator` (constant text). */
export function join(parts: readonly SqlFragment[], separator = ', '): SqlFragment {
  if (parts.length === 0) return raw('');
  return new SqlFragment(['', ...parts.slice(1).map(() => separator), ''], parts);
}
