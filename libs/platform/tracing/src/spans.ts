import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { tracingEnabled } from './start-tracing.js';

export { SpanKind, SpanStatusCode, type Attributes, type Span };

const TRACER_NAME = '@kw/platform';

/** The platform's tracer (a no-op one while tracing is off). */
export function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** Whether the current unit of work is traced (a span is active): database spans only join a trace. */
export function activeSpanExists(): boolean {
  return tracingEnabled() && trace.getSpan(context.active()) !== undefined;
}

/**
 * Runs fn inside a new active span (child of `parent`, or of the active context), ends it when
 * fn settles, and records a thrown error on it. With tracing off, fn runs as is with no span.
 */
export function withSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return fn(undefined);
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        recordError(span, err);
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks a span failed with the error's message (never its details: they may hold user data). */
export function recordError(span: Span, err: unknown): void {
  const name = err instanceof Error ? err.name : 'Error';
  const code = (err as { code?: unknown } | null)?.code;
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : name });
  span.setAttribute('error.type', typeof code === 'string' ? code : name);
}

/** A span started but not made active: `run` makes it the active span of fn (and its async work). */
export interface StartedSpan {
  span: Span;
  run<T>(fn: () => T): T;
}

/**
 * Starts a span whose end is someone else's (an HTTP request's onResponse), or returns
 * undefined while tracing is off.
 */
export function startSpan(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
): StartedSpan | undefined {
  if (!tracingEnabled()) return undefined;
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    parent,
  );
  const active = trace.setSpan(parent, span);
  return { span, run: (fn) => context.with(active, fn) };
}
