import { limitsFor, type FieldRule } from './rules.js';

/** One refused field and what is wrong with it, worded like the HTTP edge's DTO validation. */
export interface FieldViolation {
  field: string;
  problems: string[];
}

const PRESENTATION_SELECTORS = /[^\uFE0F\uFE0E][\uFE0F\uFE0E]/g;
const SURROGATE_PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/**
 * Characters as class-validator's MaxLength counts them (validator.js isLength): a surrogate
 * pair is one, and so is a character with its text/emoji presentation selector. The service then
 * never refuses what the REST edge let through.
 */
export function charCount(value: string): number {
  return (
    value.length - (value.match(PRESENTATION_SELECTORS)?.length ?? 0) - (value.match(SURROGATE_PAIRS)?.length ?? 0)
  );
}

/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair:
 * previews, snippets and queries cut to a length stay well-formed Unicode, which JSON parsers
 * and the platform's own input checks require.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** Bytes of the string in UTF-8 (a lone surrogate counts 3, as its replacement character), without encoding it. */
export function utf8Bytes(value: string): number {
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

function problemsOf(field: string, rule: FieldRule, value: unknown): string[] {
  const problems: string[] = [];
  if (typeof value === 'string') {
    if (rule.maxChars !== undefined && charCount(value) > rule.maxChars)
      problems.push(`${field} must be shorter than or equal to ${rule.maxChars} characters`);
    if (rule.maxBytes !== undefined && utf8Bytes(value) > rule.maxBytes)
      problems.push(`must be at most ${rule.maxBytes} bytes`);
    if (rule.oneOf !== undefined && value !== '' && !rule.oneOf.includes(value))
      problems.push(`${field} must be one of the following values: ${rule.oneOf.join(', ')}`);
    if (rule.notBlank && !/\S/.test(value)) problems.push(`${field} must not be blank`);
  } else if (Array.isArray(value)) {
    if (rule.maxItems !== undefined && value.length > rule.maxItems)
      problems.push(`${field} must contain no more than ${rule.maxItems} elements`);
    const eachMax = rule.eachMaxChars;
    if (eachMax !== undefined && value.some((item) => typeof item === 'string' && charCount(item) > eachMax))
      problems.push(`each value in ${field} must be shorter than or equal to ${eachMax} characters`);
  }
  return problems;
}

/**
 * What breaks the field limits of a decoded contract message (empty: nothing, or the message
 * has no limits). `typeName` is the proto message's full name, e.g. `kw.fragments.v1.CreateFragmentRequest`.
 */
export function limitViolations(typeName: string, message: object): FieldViolation[] {
  const limits = limitsFor(typeName);
  if (!limits) return [];
  const values = message as Record<string, unknown>;
  const violations: FieldViolation[] = [];
  for (const [field, rule] of Object.entries(limits.fields)) {
    const problems = problemsOf(field, rule, values[field]);
    if (problems.length > 0) violations.push({ field, problems });
  }
  return violations;
}
