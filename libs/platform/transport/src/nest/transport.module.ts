import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ServiceClient } from '../service-client.js';
import type { Transport } from '../transport.js';
import { TransportExplorer } from './transport.explorer.js';
import { TRANSPORT } from './tokens.js';

export interface TransportModuleOptions {
  /**
   * Creates the transport: `new NatsTransport(await connectNats(url, name), {...})` in the
   * distributed mode, an InProcessTransport on the process's bus in the embedded one. The
   * module owns it: it is drained when the application shuts down.
   */
  useFactory: FactoryProvider<Transport | Promise<Transport>>['useFactory'];
  inject?: FactoryProvider['inject'];
  imports?: ModuleMetadata['imports'];
  /** Default timeout of ServiceClient calls. */
  callTimeoutMs?: number;
}

/**
 * Provides TRANSPORT and ServiceClient to the whole application and serves every @Handles
 * method of its providers.
 */
@Module({})
export class TransportModule {
  static forRoot(options: TransportModuleOptions): DynamicModule {
    return {
      module: TransportModule,
      global: true,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers: [
        { provide: TRANSPORT, useFactory: options.useFactory, inject: options.inject ?? [] },
        {
          provide: ServiceClient,
          useFactory: (transport: Transport) => new ServiceClient(transport, { timeoutMs: options.callTimeoutMs }),
          inject: [TRANSPORT],
        },
        TransportExplorer,
      ],
      exports: [TRANSPORT, ServiceClient],
    };
  }
}
