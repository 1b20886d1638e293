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
  // Lengths and positions are in characters (code points, a surrogate pair is one), as
  // documented; the loop below walks UTF-16 units, and `at` turns a unit index into a character index.
  const tooLong = () => new FilterError(FILTER_MAX_LENGTH, `the filter is longer than ${FILTER_MAX_LENGTH} characters`);
  // More than two units per allowed character is too long however it is counted.
  if (text.length > 2 * FILTER_MAX_LENGTH) throw tooLong();
  const at = characterIndex(text);
  if (at(text.length) > FILTER_MAX_LENGTH) throw tooLong();
  // Postgres text cannot hold NUL: refuse it here rather than let the database fail.
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw new FilterError(at(nul), 'the NUL character is not allowed');
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'lparen' : 'rparen', value: c, position: at(i) });
      i++;
    } else if (c === "'") {
      const start = i;
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new FilterError(at(start), 'unterminated string');
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
      tokens.push({ kind: 'string', value, position: at(start) });
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const match = /^-?[0-9]+(?:\.[0-9]+)?/.exec(text.slice(i))!;
      tokens.push({ kind: 'number', value: match[0], position: at(i) });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'word', value: match[0], position: at(i) });
      i += match[0].length;
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i));
      if (!op) throw new FilterError(at(i), `unexpected character '${String.fromCodePoint(text.codePointAt(i)!)}'`);
      tokens.push({ kind: 'op', value: op, position: at(i) });
      i += op.length;
    }
  }
  tokens.push({ kind: 'end', value: '', position: at(text.length) });
  return tokens;
}

/** Maps a UTF-16 index of `text` to its character (code point) index. */
function characterIndex(text: string): (unit: number) => number {
  const points = new Uint32Array(text.length + 1);
  let count = 0;
  for (let unit = 0; unit < text.length; unit++) {
    points[unit] = count;
    const code = text.charCodeAt(unit);
    const pairEnd = code >= 0xdc00 && code <= 0xdfff && unit > 0 && isHighSurrogate(text.charCodeAt(unit - 1));
    if (!pairEnd) count++;
    else points[unit] = count - 1;
  }
  points[text.length] = count;
  return (unit) => points[unit]!;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
