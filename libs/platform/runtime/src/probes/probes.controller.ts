import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { PlatformMetrics } from '@kw/platform-observability';
import { Public } from '@kw/platform-http';
import { METRICS } from '../tokens.js';
import { Lifecycle } from '../lifecycle.js';

/**
 * Orchestrator probes and Prometheus metrics, served by every process (the gateway on its
 * API port, other components on METRICS_PORT). Not part of the public API document.
 */
@Public()
@ApiExcludeController()
@Controller()
export class ProbesController {
  constructor(
    @Inject(METRICS) private readonly metrics: PlatformMetrics,
    private readonly lifecycle: Lifecycle,
  ) {}

  @Get('healthz')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Header('cache-control', 'no-store')
  ready(@Res({ passthrough: true }) reply: FastifyReply): { status: string } {
    const ready = this.lifecycle.isReady();
    void reply.status(ready ? 200 : 503);
    return { status: ready ? 'ready' : this.lifecycle.state() };
  }

  @Get('metrics')
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    void reply.header('content-type', contentType).send(body);
  }
}
