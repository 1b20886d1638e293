import { context, propagation, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { tracingEnabled } from './start-tracing.js';

/** W3C trace-context headers, carried by HTTP requests and by NATS/in-process messages alike. */
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';

/** Adds `traceparent`/`tracestate` of the active span to outgoing headers (nothing while tracing is off). */
export function injectTraceHeaders<H extends Record<string, string>>(headers: H, ctx: Context = context.active()): H {
  if (tracingEnabled()) propagation.inject(ctx, headers);
  return headers;
}

/**
 * The remote parent carried by incoming headers (an HTTP request's, a message's), on a fresh
 * context: a received unit of work continues the caller's trace, never the receiver's.
 */
export function extractTraceContext(headers: Record<string, string | string[] | undefined>): Context {
  if (!tracingEnabled()) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers);
}
