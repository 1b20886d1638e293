import type { DynamicModule, Type } from '@nestjs/common';
import type { AppConfig, ComponentName } from '@kw/platform-config';
import type { RouteBodies } from '@kw/platform-http';

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
}

export function defineComponent(definition: ComponentDefinition): ComponentDefinition {
  return definition;
}
