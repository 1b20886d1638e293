import { HealthService } from '@kw/contracts';
import { serve, type Subscription, type Transport } from '@kw/platform-transport';
import type { HealthCheck } from '../component.js';
import type { PlatformDatabase } from '../database.js';
import { buildInfo } from '../build-info.js';

interface DependencyCheck {
  name: string;
  ok: boolean;
  latencyMs: number;
  detail: string;
  optional: boolean;
}

async function timed(name: string, check: () => Promise<unknown>, optional = false): Promise<DependencyCheck> {
  const started = performance.now();
  try {
    await check();
    return { name, ok: true, latencyMs: Math.round(performance.now() - started), detail: '', optional };
  } catch (err) {
    // The message of a driver error is safe to show operators; it carries no credentials.
    return {
      name,
      ok: false,
      optional,
      latencyMs: Math.round(performance.now() - started),
      detail: (err as Error).message.slice(0, 200),
    };
  }
}

/**
 * Serves HealthService for one component: it answers over the transport (so the caller
 * proves the message path works) and checks the component's own dependencies.
 */
export function serveComponentHealth(
  transport: Transport,
  component: string,
  database: PlatformDatabase | undefined,
  log: (msg: string) => void,
  checks: HealthCheck[] = [],
): Subscription {
  return serve(
    transport,
    HealthService.method.check,
    async () => {
      const dependencies = await Promise.all([
        ...(database ? [timed('postgres', () => database.pool.query('SELECT 1'))] : []),
        ...checks.map((c) => timed(c.name, c.check, c.optional)),
      ]);
      log(`health check of ${component}`);
      return {
        component,
        status: dependencies.every((d) => d.ok) ? 'ok' : 'degraded',
        dependencies,
        version: buildInfo().version,
      };
    },
    { target: component },
  );
}
