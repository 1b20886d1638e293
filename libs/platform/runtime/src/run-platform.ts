import 'reflect-metadata';
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConfigError, loadConfig, type AppConfig } from '@kw/platform-config';
import {
  buildOpenApiDocument,
  edgeServerOptions,
  installHttpEdge,
  receiveTimeoutOptions,
  serveOpenApi,
  serveOpenApiSubset,
} from '@kw/platform-http';
import { createLogger, NestPinoLogger, PlatformMetrics, type Logger } from '@kw/platform-observability';
import { startTracing, type TracingHandle } from '@kw/platform-tracing';
import { countHandled, serveEcho, TransportModule, type Transport } from '@kw/platform-transport';
import { buildInfo } from './build-info.js';
import type { ComponentDefinition, DatabasePlane } from './component.js';
import { CoreModule } from './core.module.js';
import { checkDataDir } from './data-dir.js';
import { openPlatformDatabase, type PlatformDatabase } from './database.js';
import { GATEWAY } from './gateway.component.js';
import { serveComponentHealth } from './health/component-health.js';
import { Lifecycle } from './lifecycle.js';
import { ProbesController } from './probes/probes.controller.js';
import { resolveTargets } from './targets.js';
import { createTransport } from './transport-factory.js';

export interface RunPlatformOptions {
  /** Name of the executable, for logs ("gateway", "fragments", "leaf"). */
  binary: string;
  /** Every component this binary can start. */
  components: ComponentDefinition[];
  /** Components started when TARGETS is unset. */
  defaultTargets: string[] | ((config: AppConfig) => string[]);
  /** Environment to read instead of process.env (tests). */
  env?: NodeJS.ProcessEnv;
  /** A real process: exit on bad config, drain and exit 0 on SIGTERM/SIGINT. Default true. */
  ownProcess?: boolean;
  /** Where logs go; stdout by default. */
  logDestination?: NodeJS.WritableStream;
  /**
   * HTTP modules of the edge itself that belong to no one component (the MCP endpoint calls
   * several): served by whichever process serves the API, like the components' httpModules.
   */
  edgeModules?: Array<Type<unknown> | DynamicModule>;
}

export interface RunningPlatform {
  app: NestFastifyApplication;
  config: AppConfig;
  logger: Logger;
  transport: Transport;
  /** Base URL the HTTP server listens on (API for the gateway, probes/metrics otherwise). */
  url: string;
  components: string[];
  /**
   * Stops taking traffic, drains HTTP requests and messages, closes the database. `drained` is
   * called between the two: what is left is the database's own stop, bounded by itself.
   */
  close(drained?: () => void): Promise<void>;
  /**
   * When the drain ran out of time: stops the embedded database server (if any) at once,
   * whatever the drain still holds, so that its data is on disk and its DATA_DIR lock released.
   */
  stopDatabase(): Promise<void>;
}

const DEFAULT_METRICS_PORT = 9464;
/**
 * Bound of the embedded database's stop once the drain timed out: the PostgreSQL server's own
 * stop ends within 30 s (a fast shutdown, then an immediate one); this bounds one that would not.
 */
const DATABASE_STOP_LIMIT_MS = 35_000;

/**
 * The one composition root of every binary (Mimir's `-target`): reads the configuration,
 * opens what the chosen components need, and starts them in one Nest application.
 */
export async function runPlatform(options: RunPlatformOptions): Promise<RunningPlatform> {
  const ownProcess = options.ownProcess ?? true;
  let config: AppConfig;
  let targets: ComponentDefinition[];
  try {
    config = loadConfig(options.env ?? process.env);
    targets = resolveTargets(config, options.components, options.defaultTargets);
    for (const target of targets) target.checkConfig?.(config);
    checkDataDir(config, targets, options.components);
  } catch (err) {
    if (!ownProcess) throw err;
    process.stderr.write(`${options.binary}: ${err instanceof ConfigError ? err.message : (err as Error).message}\n`);
    process.exit(2);
  }

  const names = targets.map((t) => t.name);
  const processName = names.length === 1 ? names[0] : options.binary;
  const logger = createLogger({ level: config.LOG_LEVEL, component: processName, destination: options.logDestination });
  const metrics = new PlatformMetrics({ component: processName });
  // Before anything opens a pool or a connection: they are wrapped only while tracing is on.
  const tracing = await startTracing({
    serviceName: config.OTEL_SERVICE_NAME ?? `kw-${processName}`,
    serviceVersion: buildInfo().version,
    endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    tracesEndpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    scheduledDelayMs: config.OTEL_BSP_SCHEDULE_DELAY,
  });
  if (tracing.enabled) logger.info({ serviceName: config.OTEL_SERVICE_NAME ?? `kw-${processName}` }, 'tracing on');
  const serveApi = names.includes(GATEWAY);
  const planes = [...new Set(targets.flatMap((t) => t.planes))] as DatabasePlane[];

  let database: PlatformDatabase | undefined;
  let transport: Transport | undefined;
  let app: NestFastifyApplication | undefined;
  const port = serveApi ? config.PORT : (config.METRICS_PORT ?? DEFAULT_METRICS_PORT);
  try {
    // Before anything starts consuming (handlers, event consumers, the outbox relay start at
    // init, and the port is bound only after): a process whose port is taken stops here.
    await assertPortFree(port, config.HOST, serveApi ? 'PORT' : 'METRICS_PORT');
    database = planes.length > 0 ? await openPlatformDatabase(config, planes, logger) : undefined;
    const dropped = (subject: string) => metrics.messagesHandled.inc({ subject, outcome: 'expired' });
    transport = countHandled(await createTransport(config, processName, logger, dropped), (subject, outcome) =>
      metrics.messagesHandled.inc({ subject, outcome }),
    );
    app = await createApplication({
      config,
      logger,
      metrics,
      database,
      transport,
      targets,
      serveApi,
      known: options.components,
      edgeModules: options.edgeModules ?? [],
    });

    for (const name of names) {
      serveComponentHealth(
        transport,
        name,
        targets.find((t) => t.name === name)?.planes.length ? database : undefined,
        (msg) => logger.debug(msg),
        targets.find((t) => t.name === name)?.healthChecks?.(config),
      );
      if (config.DIAGNOSTICS_ENABLED) serveEcho(transport, { target: name, servedBy: name });
    }
    await app.init();
    await app.listen({ port, host: config.HOST });
    const address = app.getHttpServer().address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    const url = serveApi && config.PORT !== 0 ? config.publicUrl : `http://127.0.0.1:${boundPort}`;
    app.get(Lifecycle).markReady();
    logger.info(
      { url, runMode: config.RUN_MODE, components: names, version: buildInfo().version },
      `${options.binary} ready`,
    );

    const running = createRunning({ app, config, logger, transport, url, names, database, tracing });
    if (ownProcess) handleSignals(running, config, logger);
    // A supervisor over an IPC channel (run-distributed) learns where to check this process's
    // liveness (GET /healthz on this port).
    if (ownProcess && process.send) process.send({ kind: 'kw-ready', port: boundPort });
    return running;
  } catch (err) {
    // A component may find its configuration incomplete only once it can look (the Leaf needs
    // its database to know whether it has enrolled): that is a configuration error too, exit 2.
    const badConfig = err instanceof ConfigError;
    logger.fatal({ err }, `${options.binary} failed to start`);
    logger.flush?.();
    await tracing.flush();
    // The application first: its workers (event consumers, the outbox relay) stop before the
    // transport and the pool they use are closed.
    await app?.close().catch(() => undefined);
    await transport?.drain().catch(() => undefined);
    await database?.close().catch(() => undefined);
    if (ownProcess) {
      if (badConfig) process.stderr.write(`${options.binary}: ${err.message}\n`);
      process.exit(badConfig ? 2 : 1);
    }
    throw err;
  }
}

interface ApplicationParts {
  config: AppConfig;
  logger: Logger;
  metrics: PlatformMetrics;
  database?: PlatformDatabase;
  transport: Transport;
  targets: ComponentDefinition[];
  known: ComponentDefinition[];
  serveApi: boolean;
  edgeModules: Array<Type<unknown> | DynamicModule>;
}

async function createApplication(parts: ApplicationParts): Promise<NestFastifyApplication> {
  const { config, logger, metrics, database, transport, targets, serveApi } = parts;
  const gatewayModule = targets.find((t) => t.name === GATEWAY)?.module;
  @Module({})
  class PlatformRootModule {}

  const root: DynamicModule = {
    module: PlatformRootModule,
    imports: [
      CoreModule.forRoot({
        config,
        logger,
        metrics,
        database,
        expectedComponents: parts.known.map((c) => c.name).filter((n) => n !== GATEWAY),
      }),
      TransportModule.forRoot({ useFactory: () => transport, callTimeoutMs: config.SERVICE_TIMEOUT_MS }),
      ...targets.filter((t) => t.name !== GATEWAY && t.module).map((t) => t.module as Type<unknown> | DynamicModule),
      ...(gatewayModule ? [gatewayModule] : []),
      // The API process serves every component's routes, wherever the component itself runs.
      ...(serveApi
        ? parts.known.filter((c) => c.httpModule).map((c) => c.httpModule as Type<unknown> | DynamicModule)
        : []),
      ...(serveApi ? parts.edgeModules : []),
    ],
    controllers: [ProbesController],
  };
  const receive = receiveTimeoutOptions({
    requestMs: config.REQUEST_RECEIVE_TIMEOUT_MS,
    headersMs: config.HEADERS_TIMEOUT_MS,
  });
  const edge = edgeServerOptions(logger);
  const adapter = new FastifyAdapter({
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Requests are logged by the HTTP edge with the request id: Fastify has no logger of its own
    // (so no request logging either; its disableRequestLogging option is deprecated).
    logger: false,
    // Requests arriving during the drain are refused by the HTTP edge instead (`draining`), in
    // the error model with a request id; Fastify's own 503 has neither.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Slow clients: how long receiving a request may take (the answer is not bounded by them).
    ...receive,
    // Router and HTTP-parser refusals, answered in the error model with a request id.
    ...edge,
    // Both set options of Node's server: one spread would drop the other's (the receive timeouts).
    http: { ...receive.http, ...edge.http },
  });
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, {
    logger: new NestPinoLogger(logger),
    abortOnError: false,
  });
  let lifecycle: Lifecycle | undefined;
  const routeBodies = serveApi ? parts.known.flatMap((c) => (c.routeBodies ? [c.routeBodies(config)] : [])) : [];
  installHttpEdge(app, {
    logger,
    metrics,
    bodyIdleTimeoutMs: config.BODY_IDLE_TIMEOUT_MS,
    bodyMinBytesPerSecond: config.BODY_MIN_BYTES_PER_SECOND,
    draining: () => {
      lifecycle ??= app.get(Lifecycle);
      return lifecycle?.state() === 'draining';
    },
    routeBodies: {
      streamedMultipart: routeBodies.flatMap((r) => r.streamedMultipart ?? []),
      bodyLimits: routeBodies.flatMap((r) => r.bodyLimits ?? []),
      formUrlEncoded: routeBodies.flatMap((r) => r.formUrlEncoded ?? []),
      jwtBodies: routeBodies.flatMap((r) => r.jwtBodies ?? []),
      rawJson: routeBodies.flatMap((r) => r.rawJson ?? []),
      streamedBinary: routeBodies.flatMap((r) => r.streamedBinary ?? []),
    },
  });
  if (serveApi) {
    const document = buildOpenApiDocument(app, {
      title: 'Knowledge Workspace Platform API',
      version: buildInfo().version,
      description: 'REST API of the knowledge workspace platform. Error shapes: see docs/errors.md.',
      serverUrl: config.publicUrl,
    });
    serveOpenApi(app, document);
    for (const subset of parts.known.flatMap((c) => c.openApiDocuments ?? []))
      serveOpenApiSubset(app, document, subset);
  }
  return app;
}

function createRunning(parts: {
  app: NestFastifyApplication;
  config: AppConfig;
  logger: Logger;
  transport: Transport;
  url: string;
  names: string[];
  database?: PlatformDatabase;
  tracing: TracingHandle;
}): RunningPlatform {
  let closing: Promise<void> | undefined;
  return {
    app: parts.app,
    config: parts.config,
    logger: parts.logger,
    transport: parts.transport,
    url: parts.url,
    components: parts.names,
    close(drained) {
      closing ??= (async () => {
        parts.app.get(Lifecycle).markDraining();
        // Close HTTP first: in-flight requests may still call other components. A keep-alive
        // connection that finishes its request during the drain becomes idle afterwards; close
        // such connections as they appear instead of waiting for their keep-alive timeout.
        const server = parts.app.getHttpServer() as Server;
        const sweeper = setInterval(() => server.closeIdleConnections(), 50);
        try {
          await parts.app.getHttpAdapter().close();
        } finally {
          clearInterval(sweeper);
        }
        await parts.app.close();
        drained?.();
        await parts.database?.close();
        // The last spans (the drain's requests) leave before the process does.
        await parts.tracing.flush();
        parts.logger.info({}, 'stopped');
        parts.logger.flush?.();
      })();
      return closing;
    },
    stopDatabase: async () => {
      await parts.database?.stopServer();
    },
  };
}

/** Errors of listening that come from the interface (HOST), not from the port. */
const HOST_ERRORS = ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EADDRNOTAVAIL'];

/**
 * Fails with a clear message when `port` cannot be bound (in use, or not allowed), naming the
 * variable at fault: HOST when its name does not resolve or is no address of this machine
 * (checked here, not with the configuration: it may hold at the next start). PORT 0 is probed
 * too, for HOST's sake.
 */
async function assertPortFree(port: number, host: string, variable: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === 'EADDRINUSE'
            ? `${variable} ${port} is in use on ${host} (another process, or an instance of this app left running)`
            : HOST_ERRORS.includes(err.code ?? '')
              ? `HOST ${host} cannot be listened on (not an address of this machine, or a name that does not resolve): ${err.message}`
              : `${variable} ${port} cannot be bound on ${host}: ${err.message}`,
          { cause: err },
        ),
      ),
    );
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

function handleSignals(running: RunningPlatform, config: AppConfig, logger: Logger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals | 'supervisor-gone') => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    // Past the grace period the process exits 1, but its embedded database is stopped first
    // (bounded): exiting without it would leave the server stopping unwatched and pg.lock behind.
    let timedOut = false;
    const force = setTimeout(() => {
      timedOut = true;
      logger.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'drain timed out; exiting');
      const bound = new Promise((resolve) => setTimeout(resolve, DATABASE_STOP_LIMIT_MS));
      void Promise.race([running.stopDatabase(), bound])
        .catch((err: unknown) => logger.error({ err }, 'embedded database stop failed'))
        .finally(() => {
          logger.flush?.();
          process.exit(1);
        });
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    // The grace period bounds the drain (requests, messages, components). The embedded
    // database's stop after it is bounded by its own (a fast shutdown, whose checkpoint on a busy
    // disk can take seconds, then an immediate one): exiting in its middle would only leave it
    // stopping without us, and report a clean stop as a failed one.
    running
      .close(() => clearTimeout(force))
      .then(
        // A drain that ends while the timed-out path stops the database still ran out of time.
        () => process.exit(timedOut ? 1 : 0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Started by a supervisor with an IPC channel (scripts/run-distributed.mjs): when the channel
  // closes, the supervisor is gone (even by kill -9), and nobody would stop or restart this
  // process any more: drain and exit as on SIGTERM. The channel must not keep the process alive.
  if (process.channel) {
    process.channel.unref();
    process.once('disconnect', () => {
      logger.warn({}, 'the supervisor that started this process is gone');
      stop('supervisor-gone');
    });
  }
}
