import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger, PlatformMetrics } from '@kw/platform-observability';
import type { PlatformDatabase } from './database.js';
import { Lifecycle } from './lifecycle.js';
import { APP_CONFIG, DATABASE, EXPECTED_COMPONENTS, LOGGER, METRICS } from './tokens.js';

export interface CoreDependencies {
  config: AppConfig;
  logger: Logger;
  metrics: PlatformMetrics;
  database?: PlatformDatabase;
  expectedComponents: string[];
}

/** What every component may inject: config, logger, metrics, database, lifecycle. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(deps: CoreDependencies): DynamicModule {
    const providers = [
      { provide: APP_CONFIG, useValue: deps.config },
      { provide: LOGGER, useValue: deps.logger },
      { provide: METRICS, useValue: deps.metrics },
      { provide: DATABASE, useValue: deps.database ?? null },
      { provide: EXPECTED_COMPONENTS, useValue: deps.expectedComponents },
      Lifecycle,
    ];
    return { module: CoreModule, providers, exports: providers.map((p) => ('provide' in p ? p.provide : p)) };
  }
}
