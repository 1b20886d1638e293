import { Module } from '@nestjs/common';
import { defineComponent } from './component.js';
import { DiagnosticsController } from './diagnostics/diagnostics.controller.js';
import { HealthAggregator } from './service-info/health-aggregator.js';
import { ServiceInfoController } from './service-info/service-info.controller.js';

export const GATEWAY = 'gateway';

/** The HTTP edge's own routes; domain controllers join it as their issues land. */
@Module({ controllers: [ServiceInfoController, DiagnosticsController], providers: [HealthAggregator] })
export class GatewayModule {}

export const gatewayComponent = defineComponent({ name: GATEWAY, planes: [], module: GatewayModule });
