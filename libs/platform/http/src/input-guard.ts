import { RouteConfig } from '@nestjs/platform-fastify';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';

/**
 * The one rule for text the platform accepts, applied at the edge to every parsed body, query
 * parameter and path parameter before a DTO or a handler sees it:
 * - no U+0000: PostgreSQL cannot store it in text or jsonb (SQLSTATE 22021 / 22P05);
 * - well-formed Unicode (no lone UTF-16 surrogate): it cannot be encoded as UTF-8, and some
 *   validators throw on it instead of answering;
 * - JSON nested at most MAX_JSON_DEPTH levels: class-transformer and class-validator recurse,
 *   so deeper input would overflow their stack (and cost CPU before authentication).
 * Object keys are text too and are checked the same way.
 */
export const MAX_JSON_DEPTH = 64;

const NUL_PROBLEM = 'must not contain the NUL character (U+0000)';
const SURROGATE_PROBLEM = 'must be well-formed Unicode (it contains a lone UTF-16 surrogate)';

// String.prototype.isWellFormed is ES2024, beyond this project's lib (Node 20 is supported).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with one string, or undefined when it may be stored. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\0')) return NUL_PROBLEM;
  if (LONE_SURROGATE.test(value)) return SURROGATE_PROBLEM;
  return undefined;
}

const invalidText = invalidField;

function tooDeep(): AppError {
  return new AppError({
    status: 400,
    code: ErrorCode.INVALID_JSON,
    message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels`,
  });
}

const fieldPath = (parent: string, key: string | number): string =>
  typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

/**
 * Checks a parsed body: the first offending string (by its field path) or a nesting beyond
 * MAX_JSON_DEPTH. Iterative, so hostile nesting cannot overflow this check's stack.
 */
export function checkBody(body: unknown): AppError | undefined {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return invalidText(path || 'body', problem);
      continue;
    }
    // Binary bodies (a byte stream for upload routes) carry no text to check.
    if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) continue;
    if (depth >= MAX_JSON_DEPTH) return tooDeep();
    if (Array.isArray(value)) {
      value.forEach((item, i) => pending.push({ value: item, path: fieldPath(path, i), depth: depth + 1 }));
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = textProblem(key);
      if (keyProblem) return invalidText(path || 'body', `keys ${keyProblem}`);
      pending.push({ value: item, path: fieldPath(path, key), depth: depth + 1 });
    }
  }
  return undefined;
}

const PERCENT_ENCODING_PROBLEM = 'must be well-formed Unicode (its percent-encoded bytes are not UTF-8)';

/**
 * Percent-encoded bytes of a query string that are not UTF-8 (`%FF`, or `%ED%A0%80`, a lone
 * surrogate encoded as UTF-8): the query parser leaves such a value undecoded, so it would be
 * read as typed. Refused like a lone surrogate in a body, naming the parameter. A `%` not followed
 * by two hex digits is a literal `%`, as the parser (and URLSearchParams) read it.
 */
function checkQueryString(url: string): AppError | undefined {
  const at = url.indexOf('?');
  if (at < 0 || !url.includes('%', at)) return undefined;
  for (const pair of url.slice(at + 1).split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const [name, value] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const decodedName = percentDecoded(name);
    if (decodedName === undefined) return invalidText('query', `parameter names ${PERCENT_ENCODING_PROBLEM}`);
    if (percentDecoded(value) === undefined) return invalidText(decodedName, PERCENT_ENCODING_PROBLEM);
  }
  return undefined;
}

/** The text percent-decoded (a `%` without two hex digits kept as it is), or undefined when its bytes are not UTF-8. */
function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' ').replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
  } catch {
    return undefined;
  }
}

/**
 * Checks query or path parameters (strings, or arrays of strings for repeated query keys).
 * `url`: the request's URL, whose query string's percent-encoding is checked first.
 */
export function checkParameters(parameters: unknown, url?: string): AppError | undefined {
  const encoding = url === undefined ? undefined : checkQueryString(url);
  if (encoding) return encoding;
  if (parameters === null || typeof parameters !== 'object') return undefined;
  for (const [name, value] of Object.entries(parameters)) {
    const nameProblem = textProblem(name);
    if (nameProblem) return invalidText('query', `parameter names ${nameProblem}`);
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string') continue;
      const problem = textProblem(item);
      if (problem) return invalidText(name, problem);
    }
  }
  return undefined;
}

/** The route config key of ChecksOwnQuery. */
export const OWN_QUERY_CHECK = 'kwChecksOwnQuery';

/**
 * A route whose handler checks its query parameters itself (with checkParameters) and answers a
 * refusal in its own form: a page a person's browser loads (`GET /oauth2/authorize`) shows the
 * refusal as that page, never as the edge's JSON body. Path parameters and bodies are still
 * checked at the edge.
 */
export const ChecksOwnQuery = () => RouteConfig({ [OWN_QUERY_CHECK]: true });
