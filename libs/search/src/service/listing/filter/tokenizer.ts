import { FILTER_MAX_LENGTH, FilterError } from './filter-error.js';

export type TokenKind = 'word' | 'string' | 'number' | 'op' | 'lparen' | 'rparen' | 'end';

export interface Token {
  kind: TokenKind;
  /** Words as written (keywords are matched case-insensitively), strings unquoted. */
  value: string;
  position: number;
}

const OPERATORS = ['<=', '>=', '!=', '=', '<', '>', '~'];

/**
 * Splits a filter into tokens: words (fields and keywords), single-quoted strings ('' is a
 * quote inside), numbers, comparison operators and parentheses. Anything else is refused here,
 * with its position.
 */
export function tokenize(text: string): Token[] {
  if (text.length > FILTER_MAX_LENGTH)
    throw new FilterError(FILTER_MAX_LENGTH, `the filter is longer than ${FILTER_MAX_LENGTH} characters`);
  // Postgres text cannot hold NUL: refuse it here rather than let the database fail.
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw new FilterError(nul, 'the NUL character is not allowed');
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'lparen' : 'rparen', value: c, position: i });
      i++;
    } else if (c === "'") {
      const start = i;
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new FilterError(start, 'unterminated string');
        if (text[i] === "'") {
          if (text[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
      tokens.push({ kind: 'string', value, position: start });
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const match = /^-?[0-9]+(?:\.[0-9]+)?/.exec(text.slice(i))!;
      tokens.push({ kind: 'number', value: match[0], position: i });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'word', value: match[0], position: i });
      i += match[0].length;
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i));
      if (!op) throw new FilterError(i, `unexpected character '${c}'`);
      tokens.push({ kind: 'op', value: op, position: i });
      i += op.length;
    }
  }
  tokens.push({ kind: 'end', value: '', position: text.length });
  return tokens;
}
