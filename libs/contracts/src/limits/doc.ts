import type { FieldRule } from './rules.js';
import { MESSAGE_LIMITS } from './rules.js';

/** Where the generated table sits in docs/limits.md. */
export const LIMITS_DOC_PATH = 'docs/limits.md';
export const LIMITS_DOC_BEGIN = '<!-- limits:begin (generated from libs/contracts/src/limits/rules.ts) -->';
export const LIMITS_DOC_END = '<!-- limits:end -->';

const number = (n: number): string => n.toLocaleString('en-US');

function describeRule(rule: FieldRule): string {
  const parts: string[] = [];
  if (rule.maxChars !== undefined) parts.push(`at most ${number(rule.maxChars)} characters`);
  if (rule.maxBytes !== undefined) parts.push(`at most ${number(rule.maxBytes)} bytes (UTF-8)`);
  if (rule.maxItems !== undefined) parts.push(`at most ${number(rule.maxItems)} items`);
  if (rule.eachMaxChars !== undefined) parts.push(`each at most ${number(rule.eachMaxChars)} characters`);
  if (rule.oneOf !== undefined) parts.push(`one of ${rule.oneOf.map((v) => `\`${v}\``).join(', ')}`);
  if (rule.notBlank) parts.push('not blank (white space only is refused)');
  return parts.join('; ');
}

/** The Markdown table of every message's field limits, as docs/limits.md holds it between the markers. */
export function renderLimitsTable(): string {
  const rows = MESSAGE_LIMITS.flatMap(({ schema, fields }) =>
    Object.entries(fields).map(([field, rule]) => `| \`${schema.typeName}\` | \`${field}\` | ${describeRule(rule)} |`),
  );
  return ['| message | field | limit |', '|---|---|---|', ...rows].join('\n');
}

/** `doc` with the text between the markers replaced by the current table (markers must be present). */
export function withLimitsTable(doc: string): string {
  const begin = doc.indexOf(LIMITS_DOC_BEGIN);
  const end = doc.indexOf(LIMITS_DOC_END);
  if (begin < 0 || end < begin)
    throw new Error(`${LIMITS_DOC_PATH} lacks the markers ${LIMITS_DOC_BEGIN} ... ${LIMITS_DOC_END}`);
  return `${doc.slice(0, begin + LIMITS_DOC_BEGIN.length)}\n${renderLimitsTable()}\n${doc.slice(end)}`;
}
