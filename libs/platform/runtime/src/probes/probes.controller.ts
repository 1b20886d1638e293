import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { PlatformMetrics } from '@kw/platform-observability';
import { Public } from '@kw/platform-http';
import { natsLinks } from '@kw/platform-transport';
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

  /**
   * Ready: started, not draining, and every NATS connection of the process up (while one is
   * down the process can neither answer nor ask other components; it keeps reconnecting).
   */
  @Get('readyz')
  @Header('cache-control', 'no-store')
  ready(@Res({ passthrough: true }) reply: FastifyReply): { status: string; disconnected?: string[] } {
    if (!this.lifecycle.isReady()) {
      void reply.status(503);
      return { status: this.lifecycle.state() };
    }
    const down = natsLinks()
      .filter((l) => !l.connected)
      .map((l) => l.name);
    if (down.length > 0) {
      void reply.status(503);
      return { status: 'nats-disconnected', disconnected: down };
    }
    return { status: 'ready' };
  }

  @Get('metrics')
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    void reply.header('content-type', contentType).send(body);
  }
}
