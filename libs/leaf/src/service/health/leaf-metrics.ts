import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import type { PlatformMetrics } from '@kw/platform-observability';
import { METRICS } from '@kw/platform-runtime';
import { LeafHealth } from './leaf-health.js';

const seconds = (iso: string | null): number => (iso ? Date.parse(iso) / 1000 : 0);

/**
 * The Leaf's link to the Cloud as Prometheus gauges, read from its health at each scrape
 * (docs/hosted-zones-leaf.md, "Metrics"). Alert on `kw_leaf_cloud_link_up == 0` or on
 * `time() - kw_leaf_last_heartbeat_timestamp_seconds`.
 */
@Injectable()
export class LeafMetrics implements OnModuleInit {
  constructor(
    @Inject(METRICS) private readonly metrics: PlatformMetrics,
    private readonly health: LeafHealth,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    const health = this.health;
    new Gauge({
      name: 'kw_leaf_cloud_link_up',
      help: '1 while the Cloud answers heartbeats, else 0',
      registers,
      collect() {
        this.set(health.report().link === 'up' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'kw_leaf_last_heartbeat_timestamp_seconds',
      help: 'When the Cloud last answered a heartbeat (Unix seconds; 0: never since start)',
      registers,
      collect() {
        this.set(seconds(health.report().lastHeartbeatAt));
      },
    });
    new Gauge({
      name: 'kw_leaf_handoff_keys_fetched_timestamp_seconds',
      help: "When the Cloud's keys (JWKS) were last fetched (Unix seconds; 0: never)",
      registers,
      collect() {
        this.set(seconds(health.report().keys.fetchedAt));
      },
    });
    new Gauge({
      name: 'kw_leaf_handoff_revocations',
      help: 'Handoff revocations the Leaf holds (from the last heartbeat)',
      registers,
      collect() {
        this.set(health.report().revocations.count);
      },
    });
  }
}
