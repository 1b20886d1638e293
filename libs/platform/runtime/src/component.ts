import type { DynamicModule, Type } from '@nestjs/common';
import type { AppConfig, ComponentName } from '@kw/platform-config';
import type { OpenApiSubsetSettings, RouteBodies } from '@kw/platform-http';

export type DatabasePlane = 'control' | 'data';

/**
 * A component is one service of the platform (Mimir's "module"): a Nest module plus what it
 * needs at start-up. The same definitions are started one per process (distributed), all in
 * one process (embedded) or as the data-plane subset (leaf); only the composition differs.
 */
export interface ComponentDefinition {
  name: ComponentName;
  /** Database planes whose migrations this component needs applied before it serves. */
  planes: DatabasePlane[];
  /** The component's service side: message handlers, running wherever the component runs. */
  module?: Type<unknown> | DynamicModule;
  /**
   * The component's HTTP side: controllers that validate at the edge and call the service
   * through its contract. Composed into whichever process serves the API (gateway, Leaf).
   */
  httpModule?: Type<unknown> | DynamicModule;
  /** Routes of the httpModule whose request bodies the edge treats differently (streamed uploads, larger limits). */
  routeBodies?: (config: AppConfig) => RouteBodies;
  /**
   * Checks of what the component needs besides its database, reported by its health answer
   * (a failing one makes the component `degraded`, with the check's message as the detail).
   */
  healthChecks?: (config: AppConfig) => HealthCheck[];
  /** Separate OpenAPI documents of a part of the HTTP API (e.g. the OpenAI-compatible /api/v1). */
  openApiDocuments?: OpenApiSubsetSettings[];
  /**
   * Settings only this component needs, checked with the configuration before anything starts
   * (no database made, no migration applied): throws ConfigError, and the process exits 2.
   */
  checkConfig?: (config: AppConfig) => void;
}

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; the message of a rejection is shown to operators. */
  check: () => Promise<unknown>;
  /** A feature the component works without (not configured): reported, but the component stays ready. */
  optional?: boolean;
}

export function defineComponent(definition: ComponentDefinition): ComponentDefinition {
  return definition;
}
