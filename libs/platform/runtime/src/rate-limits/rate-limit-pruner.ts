import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '../tokens.js';
import { RATE_LIMITERS, type RateLimiters } from './rate-limiters.js';

const PRUNE_EVERY_MS = 60_000;

/** Drops expired rate-limit windows so the counters stay as small as the traffic. */
@Injectable()
export class RateLimitPruner implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(RATE_LIMITERS) private readonly limiters: RateLimiters,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.limiters.store
        .prune(Date.now())
        .catch((err: unknown) => this.logger.warn({ err }, 'rate-limit prune failed'));
    }, PRUNE_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
