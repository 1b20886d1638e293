import { Inject, Injectable, Optional } from '@nestjs/common';
import { HealthService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { AppError } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';
import { APP_CONFIG, CLOUD_LINK_HEALTH, EXPECTED_COMPONENTS } from '../tokens.js';
import type { CloudLinkHealth } from './cloud-link.js';
import type { ComponentHealthDto, HealthDto } from './service-info.dto.js';

/** Health checks must answer fast even when a component hangs: a probe is not a request. */
const MAX_CHECK_MS = 2_000;

/** Asks every component the gateway depends on for its health, over the real message path. */
@Injectable()
export class HealthAggregator {
  constructor(
    private readonly client: ServiceClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EXPECTED_COMPONENTS) private readonly components: string[],
    @Optional() @Inject(CLOUD_LINK_HEALTH) private readonly cloudLink?: CloudLinkHealth,
  ) {}

  async check(): Promise<HealthDto> {
    const components = await Promise.all(this.components.map((c) => this.checkOne(c)));
    // A Leaf whose Cloud is unreachable still serves (degraded); one that cannot verify tokens does not (down).
    const link = this.cloudLink?.report();
    const ok = components.every((c) => c.status === 'ok') && (!link || link.status === 'ok');
    return {
      status: link?.status === 'down' ? 'down' : ok ? 'ok' : 'degraded',
      ready:
        link?.status !== 'down' &&
        components.every((c) => c.status !== 'unavailable' && c.dependencies.every((d) => d.ok || d.optional)),
      live: true,
      runMode: this.config.RUN_MODE,
      components,
      ...(link && { cloudLink: link }),
      checkedAt: new Date().toISOString(),
    };
  }

  /** One component; never throws: an unreachable component is reported, not raised. */
  async checkOne(component: string): Promise<ComponentHealthDto> {
    const started = performance.now();
    try {
      return await this.describe(component);
    } catch (err) {
      return {
        component,
        status: 'unavailable',
        latencyMs: Math.round(performance.now() - started),
        dependencies: [],
        // The code; when this process lost NATS, also the message saying so (every component
        // then reads unavailable, and the reason is not theirs).
        detail: !AppError.isAppError(err)
          ? 'INTERNAL_ERROR'
          : err.details?.transport
            ? `${err.code}: ${err.message}`
            : err.code,
      };
    }
  }

  /** Asks one component; transport errors (503 unavailable, 504 timeout) propagate. */
  async describe(component: string): Promise<ComponentHealthDto> {
    const started = performance.now();
    const answer = await this.client.call(
      HealthService.method.check,
      {},
      {
        target: component,
        timeoutMs: Math.min(MAX_CHECK_MS, this.config.SERVICE_TIMEOUT_MS),
      },
    );
    return {
      component,
      status: answer.status === 'ok' ? 'ok' : 'degraded',
      latencyMs: Math.round(performance.now() - started),
      dependencies: answer.dependencies.map((d) => ({
        name: d.name,
        ok: d.ok,
        latencyMs: d.latencyMs,
        ...(d.detail ? { detail: d.detail } : {}),
        ...(d.optional ? { optional: true } : {}),
      })),
    };
  }
}
