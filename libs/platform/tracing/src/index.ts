export {
  startTracing,
  flushTracing,
  stopTracing,
  tracingEnabled,
  tracesUrl,
  type TracingConfig,
  type TracingHandle,
} from './start-tracing.js';
export {
  tracer,
  withSpan,
  startSpan,
  recordError,
  activeSpanExists,
  SpanKind,
  SpanStatusCode,
  type Span,
  type Attributes,
  type StartedSpan,
} from './spans.js';
export { injectTraceHeaders, extractTraceContext, TRACEPARENT_HEADER, TRACESTATE_HEADER } from './propagation.js';
