import { Global, Module } from '@nestjs/common';
import { CLOUD_LINK_HEALTH } from '@kw/platform-runtime';
import { LeafServiceModule } from '../leaf-service.module.js';
import { LeafHealth } from './leaf-health.js';
import { LeafMetrics } from './leaf-metrics.js';

/**
 * The Leaf's link to its Cloud in /api/health (the gateway's HealthAggregator reads
 * CLOUD_LINK_HEALTH, hence global) and in /metrics.
 */
@Global()
@Module({
  imports: [LeafServiceModule],
  providers: [LeafHealth, LeafMetrics, { provide: CLOUD_LINK_HEALTH, useExisting: LeafHealth }],
  exports: [CLOUD_LINK_HEALTH],
})
export class LeafHealthModule {}
