import { Module } from '@nestjs/common';
import { defineComponent, GatewayModule, leafGatewayComponent } from '@kw/platform-runtime';
import { LeafHttpModule } from './http/leaf-http.module.js';
import { leafSettingsFrom } from './leaf-settings.js';
import { LeafHealthModule } from './service/health/leaf-health.module.js';
import { LeafServiceModule } from './service/leaf-service.module.js';

/**
 * The Leaf's edge: the gateway's own routes and rate limits (its /api/health with the link to
 * the Cloud), plus what makes it a hosted zone's Leaf.
 */
@Module({ imports: [GatewayModule, LeafServiceModule, LeafHealthModule] })
export class LeafEdgeModule {}

/**
 * The edge of the Leaf binary (docs/hosted-zones-leaf.md): the platform's Leaf gateway, on the
 * data plane (the Leaf keeps its enrollment there), with the Leaf's pieces: enrollment with the
 * Cloud, heartbeats and placements, the Cloud's keys, WorkspacesService answered from the
 * handoff token, and handoff-token authentication of every route. Not a component of its own:
 * the components (COMPONENTS, TARGETS, images) are the Cloud's; the Leaf is one process.
 */
export const leafEdgeComponent = defineComponent({
  ...leafGatewayComponent,
  planes: ['data'],
  module: LeafEdgeModule,
  httpModule: LeafHttpModule,
  // CLOUD_URL and an https PUBLIC_URL, before the Leaf makes its database (nothing half-configured).
  checkConfig: leafSettingsFrom,
});
