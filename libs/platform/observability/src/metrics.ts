import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * One Prometheus registry per process. Components add their own metrics to it; the process
 * serves it at /metrics (the gateway on its HTTP port, other components on METRICS_PORT).
 */
export class PlatformMetrics {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<'method' | 'route' | 'status'>;
  readonly messagesHandled: Counter<'subject' | 'outcome'>;

  constructor(labels: Record<string, string>) {
    this.registry.setDefaultLabels(labels);
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Histogram({
      name: 'kw_http_request_duration_seconds',
      help: 'HTTP requests by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.messagesHandled = new Counter({
      name: 'kw_messages_handled_total',
      help: 'Messages handled by this process, by subject and outcome',
      labelNames: ['subject', 'outcome'],
      registers: [this.registry],
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
