import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { serve, type MethodHandler } from '../serve.js';
import { isPerComponent } from '../subject.js';
import type { Transport } from '../transport.js';
import { HANDLES_METADATA, type HandlesMetadata } from './handles.decorator.js';
import { TRANSPORT } from './tokens.js';

/**
 * Finds the @Handles methods of every provider once the application has started (so the
 * handlers' dependencies are ready) and serves them on the transport; drains the transport
 * before shutdown so in-flight requests finish.
 *
 * Nest runs beforeApplicationShutdown after every onModuleDestroy hook: resources the
 * handlers use (database pools...) must close in onApplicationShutdown to outlive the drain.
 */
@Injectable()
export class TransportExplorer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    @Inject(TRANSPORT) private readonly transport: Transport,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      // Request-scoped providers have no single instance to serve with.
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const fn = prototype[name];
        if (typeof fn !== 'function') continue;
        const handles = this.reflector.get<HandlesMetadata | undefined>(HANDLES_METADATA, fn);
        if (!handles) continue;
        const { method, options } = handles;
        const target = options.target ?? (isPerComponent(method) ? this.transport.component : undefined);
        serve(this.transport, method, (fn as MethodHandler<typeof method.input, typeof method.output>).bind(instance), {
          ...options,
          target,
        });
      }
    }
    await this.transport.flush();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.transport.drain();
  }
}
