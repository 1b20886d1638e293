import { FILTER_MAX_COMPARISONS, FILTER_MAX_DEPTH, FilterError } from './filter-error.js';
import { tokenize, type Token } from './tokenizer.js';

export type Operator = '=' | '!=' | '<' | '<=' | '>' | '>=' | '~' | 'has' | 'is null' | 'is not null';

export interface Literal {
  kind: 'string' | 'number';
  value: string;
  position: number;
}

export type FilterNode =
  | { type: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { type: 'not'; operand: FilterNode }
  | { type: 'compare'; field: string; fieldPosition: number; op: Operator; opPosition: number; value?: Literal };

const KEYWORDS = new Set(['and', 'or', 'not', 'has', 'is', 'null']);

/**
 * Recursive descent over the grammar (keywords case-insensitive):
 *   expr    := and ('or' and)*
 *   and     := unary ('and' unary)*
 *   unary   := 'not' unary | '(' expr ')' | compare
 *   compare := FIELD ('=' | '!=' | '<' | '<=' | '>' | '>=' | '~' | 'has') VALUE | FIELD 'is' ['not'] 'null'
 * Nesting (parentheses and `not`) is limited to FILTER_MAX_DEPTH, comparisons to
 * FILTER_MAX_COMPARISONS. Field names are checked by the compiler, not here.
 */
export function parseFilter(text: string): FilterNode | undefined {
  const tokens = tokenize(text);
  if (tokens[0].kind === 'end') return undefined;
  return new Parser(tokens).parse();
}

class Parser {
  private index = 0;
  private comparisons = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): FilterNode {
    const node = this.expr(0);
    const next = this.peek();
    if (next.kind !== 'end')
      throw new FilterError(
        next.position,
        next.kind === 'rparen' ? "unbalanced ')'" : `expected 'and', 'or' or the end, found ${describe(next)}`,
      );
    return node;
  }

  private expr(depth: number): FilterNode {
    let left = this.and(depth);
    while (this.keyword('or')) left = { type: 'or', left, right: this.and(depth) };
    return left;
  }

  private and(depth: number): FilterNode {
    let left = this.unary(depth);
    while (this.keyword('and')) left = { type: 'and', left, right: this.unary(depth) };
    return left;
  }

  private unary(depth: number): FilterNode {
    const token = this.peek();
    if (depth >= FILTER_MAX_DEPTH && (token.kind === 'lparen' || isKeyword(token, 'not'))) {
      throw new FilterError(token.position, `nesting deeper than ${FILTER_MAX_DEPTH} levels`);
    }
    if (this.keyword('not')) return { type: 'not', operand: this.unary(depth + 1) };
    if (token.kind === 'lparen') {
      this.index++;
      const inner = this.expr(depth + 1);
      const close = this.peek();
      if (close.kind !== 'rparen') throw new FilterError(close.position, `expected ')', found ${describe(close)}`);
      this.index++;
      return inner;
    }
    return this.compare();
  }

  private compare(): FilterNode {
    const field = this.peek();
    if (field.kind !== 'word' || KEYWORDS.has(field.value.toLowerCase()))
      throw new FilterError(field.position, `expected a field name, found ${describe(field)}`);
    this.index++;
    if (++this.comparisons > FILTER_MAX_COMPARISONS)
      throw new FilterError(field.position, `more than ${FILTER_MAX_COMPARISONS} comparisons`);
    const opToken = this.peek();
    const base = {
      type: 'compare' as const,
      field: field.value,
      fieldPosition: field.position,
      opPosition: opToken.position,
    };
    if (this.keyword('is')) {
      const negated = this.keyword('not');
      const nullToken = this.peek();
      if (!this.keyword('null'))
        throw new FilterError(nullToken.position, `expected 'null', found ${describe(nullToken)}`);
      return { ...base, op: negated ? 'is not null' : 'is null' };
    }
    let op: Operator;
    if (opToken.kind === 'op') op = opToken.value as Operator;
    else if (isKeyword(opToken, 'has')) op = 'has';
    else
      throw new FilterError(
        opToken.position,
        `expected an operator (=, !=, <, <=, >, >=, ~, has, is null), found ${describe(opToken)}`,
      );
    this.index++;
    const value = this.peek();
    if (value.kind !== 'string' && value.kind !== 'number')
      throw new FilterError(value.position, `expected a value ('text' or a number), found ${describe(value)}`);
    this.index++;
    return { ...base, op, value: { kind: value.kind, value: value.value, position: value.position } };
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private keyword(word: string): boolean {
    if (!isKeyword(this.peek(), word)) return false;
    this.index++;
    return true;
  }
}

const isKeyword = (token: Token, word: string): boolean => token.kind === 'word' && token.value.toLowerCase() === word;

function describe(token: Token): string {
  if (token.kind === 'end') return 'the end of the filter';
  if (token.kind === 'string') return 'a string';
  return `'${token.value}'`;
}
