import { Inject, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { afterEach, describe, expect, it } from 'vitest';
import { EchoService, HealthService, type EchoRequest } from '@kw/contracts';
import { AppError } from '@kw/platform-errors';
import type { RequestContext } from '@kw/platform-context';
import { InProcessBus } from '../in-process-bus.js';
import { InProcessTransport } from '../in-process-transport.js';
import { silentLogger } from '../logger.js';
import { ServiceClient } from '../service-client.js';
import type { Transport } from '../transport.js';
import { Handles } from './handles.decorator.js';
import { TRANSPORT } from './tokens.js';
import { TransportModule } from './transport.module.js';

@Injectable()
class Clock {
  now = () => 'tick';
}

@Injectable()
class SearchHandlers {
  constructor(private readonly clock: Clock) {}

  /** Per-component contract: served as the transport's component ("search"). */
  @Handles(HealthService.method.check)
  check() {
    return { component: 'search', status: 'ok', version: this.clock.now() };
  }

  @Handles(EchoService.method.echo, { target: 'search' })
  async echo(input: EchoRequest, context: RequestContext) {
    await new Promise((resolve) => setTimeout(resolve, input.delayMs));
    return { text: input.text, requestId: context.requestId };
  }

  notAHandler() {
    return 'ignored';
  }
}

// Handlers are checked against the contract at compile time.
export class Mistyped {
  // @ts-expect-error EchoRequest is not the input of HealthService.Check
  @Handles(HealthService.method.check)
  check(input: EchoRequest) {
    return { component: input.text };
  }
}

@Injectable()
class Probe {
  constructor(
    readonly client: ServiceClient,
    @Inject(TRANSPORT) readonly transport: Transport,
  ) {}
}

describe('TransportModule', () => {
  const bus = new InProcessBus();
  const outside: Transport[] = [];
  afterEach(async () => Promise.all(outside.splice(0).map((t) => t.drain())));

  async function start() {
    @Module({
      imports: [
        TransportModule.forRoot({
          useFactory: () => new InProcessTransport({ bus, component: 'search', logger: silentLogger }),
        }),
      ],
      providers: [Clock, SearchHandlers, Probe],
    })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    await app.init();
    return app;
  }

  it('serves @Handles methods of providers at bootstrap and provides ServiceClient and TRANSPORT', async () => {
    const app = await start();
    const probe = app.get(Probe);
    expect(probe.transport.component).toBe('search');

    const health = await probe.client.call(HealthService.method.check, {}, { target: 'search' });
    expect(health).toMatchObject({ component: 'search', status: 'ok', version: 'tick' });

    const caller = new InProcessTransport({ bus, component: 'gateway' });
    outside.push(caller);
    const reply = await new ServiceClient(caller).call(EchoService.method.echo, { text: 'hi' }, { target: 'search' });
    expect(reply.text).toBe('hi');
    expect(reply.requestId).not.toBe('');
    await app.close();
  });

  it('drains the transport on shutdown: in-flight requests are answered, later ones find nobody', async () => {
    const app = await start();
    const caller = new InProcessTransport({ bus, component: 'gateway' });
    outside.push(caller);
    const client = new ServiceClient(caller);

    const inFlight = client.call(EchoService.method.echo, { text: 'slow', delayMs: 200 }, { target: 'search' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await app.close();
    expect((await inFlight).text).toBe('slow');

    const err = await client
      .call(EchoService.method.echo, { text: 'late' }, { target: 'search' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(503);
  });
});
