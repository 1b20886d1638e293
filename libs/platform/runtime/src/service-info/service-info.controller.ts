import { Controller, Get, Header, Inject, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { AppConfig } from '@kw/platform-config';
import { notFound } from '@kw/platform-errors';
import { Public } from '@kw/platform-http';
import { buildInfo } from '../build-info.js';
import { APP_CONFIG, EXPECTED_COMPONENTS } from '../tokens.js';
import { HealthAggregator } from './health-aggregator.js';
import { ComponentHealthDto, HealthDto, VersionDto } from './service-info.dto.js';

/** Spec: Service information. Public, unauthenticated, never cached. */
@Public()
@ApiTags('Service information')
@Controller('api')
export class ServiceInfoController {
  constructor(
    private readonly health: HealthAggregator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EXPECTED_COMPONENTS) private readonly components: string[],
  ) {}

  @Get('health')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'Health',
    description: [
      'Liveness of the gateway and readiness of every component and its dependencies. 200 when all are ready, 503 otherwise (the body says which).',
      'A feature that is not configured (e.g. no model provider for chat) shows as `degraded` with what to set, and does not make the platform unready.',
      'On a Leaf, `cloudLink` reports its link to the Cloud: `degraded` (200) while the Cloud does not answer, `down` (503) when no handoff token can be verified.',
    ].join(' '),
  })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({ type: HealthDto, description: 'At least one component or dependency is not ready' })
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthDto> {
    const result = await this.health.check();
    void reply.status(result.ready ? 200 : 503);
    return result;
  }

  @Get('health/:component')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'Health of one component',
    description:
      'Asks one component over the message bus. 503 SERVICE_UNAVAILABLE when it is not running, 504 SERVICE_TIMEOUT when it does not answer in time.',
  })
  @ApiParam({ name: 'component', example: 'fragments' })
  @ApiOkResponse({ type: ComponentHealthDto })
  async checkComponent(@Param('component') component: string): Promise<ComponentHealthDto> {
    if (!this.components.includes(component)) throw notFound('Component');
    return this.health.describe(component);
  }

  @Get('version')
  @ApiOperation({ summary: 'Platform version', description: 'Version and build of the platform serving this request.' })
  @ApiOkResponse({ type: VersionDto })
  version(): VersionDto {
    const info = buildInfo();
    return {
      version: info.version,
      commit: info.commit,
      builtAt: info.builtAt,
      node: process.version,
      runMode: this.config.RUN_MODE,
    };
  }
}
