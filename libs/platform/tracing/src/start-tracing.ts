import { context, propagation, trace } from '@opentelemetry/api';
import type { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { TracerProvider } from '@opentelemetry/sdk-trace';

export interface TracingConfig {
  /** service.name of the spans (`kw-gateway`, `kw-fragments`...; OTEL_SERVICE_NAME when set). */
  serviceName: string;
  serviceVersion?: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; traces go to `<endpoint>/v1/traces`. */
  endpoint?: string;
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the full URL traces are posted to (wins over endpoint). */
  tracesEndpoint?: string;
  /** OTEL_BSP_SCHEDULE_DELAY: how long finished spans wait to be sent in one batch (SDK default 5 s). */
  scheduledDelayMs?: number;
}

export interface TracingHandle {
  /** False when no endpoint is configured: nothing was registered. */
  readonly enabled: boolean;
  /** Sends the spans still waiting in the batch. Resolves (never rejects) once tried. */
  flush(): Promise<void>;
}

interface Active {
  provider: TracerProvider;
  exporter: OTLPTraceExporter;
  contextManager: AsyncLocalStorageContextManager;
}

let active: Active | undefined;

const DISABLED: TracingHandle = { enabled: false, flush: () => Promise.resolve() };

/** Where spans are posted, or undefined when tracing is off. */
export function tracesUrl(config: Pick<TracingConfig, 'endpoint' | 'tracesEndpoint'>): string | undefined {
  if (config.tracesEndpoint) return config.tracesEndpoint;
  if (config.endpoint) return `${config.endpoint.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/**
 * Turns tracing on for this process, once, at start (runPlatform): a tracer provider exporting
 * over OTLP/HTTP (JSON) in batches, W3C trace-context propagation, and an AsyncLocalStorage
 * context manager. Only when an OTLP endpoint is configured: otherwise nothing is registered,
 * @opentelemetry/api stays its no-op self and every span helper of the platform is a plain
 * call (tracingEnabled() is false), so tracing off costs nothing, not even loading the SDK.
 * Later calls (several platforms in one test process) return the first registration.
 */
export async function startTracing(config: TracingConfig): Promise<TracingHandle> {
  if (active) return handleOf(active);
  const url = tracesUrl(config);
  if (!url) return DISABLED;
  // The SDK and the exporter (about 200 ms of module loading) only where tracing is on.
  const [
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { BatchSpanProcessor, TracerProvider },
    { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION },
  ] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  // Two calls racing through the imports: the first to get here registers.
  if (active) return handleOf(active);

  const contextManager = new AsyncLocalStorageContextManager().enable();
  const exporter = new OTLPTraceExporter({ url });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: config.serviceName,
      ...(config.serviceVersion ? { [ATTR_SERVICE_VERSION]: config.serviceVersion } : {}),
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        ...(config.scheduledDelayMs !== undefined ? { scheduledDelayMillis: config.scheduledDelayMs } : {}),
      }),
    ],
  });
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  active = { provider, exporter, contextManager };
  return handleOf(active);
}

function handleOf(registration: Active): TracingHandle {
  return {
    enabled: true,
    // The provider hands the queued spans to the exporter; the exporter's flush waits for every
    // export in flight, those the batch timer started included.
    flush: async () => {
      await registration.provider.forceFlush().catch(() => undefined);
      await registration.exporter.forceFlush().catch(() => undefined);
    },
  };
}

/** Whether startTracing registered a provider: the platform's span helpers do nothing otherwise. */
export function tracingEnabled(): boolean {
  return active !== undefined;
}

/** Sends the spans not yet exported (the runtime's close). A no-op when tracing is off. */
export function flushTracing(): Promise<void> {
  return active ? handleOf(active).flush() : Promise.resolve();
}

/** Flushes and unregisters everything startTracing registered (tests). */
export async function stopTracing(): Promise<void> {
  const registration = active;
  if (!registration) return;
  active = undefined;
  await registration.provider.shutdown().catch(() => undefined);
  trace.disable();
  propagation.disable();
  context.disable();
}
