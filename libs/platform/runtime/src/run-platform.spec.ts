import { PassThrough } from 'node:stream';
import { Controller, Get, Module } from '@nestjs/common';
import { afterEach, describe, expect, it } from 'vitest';
import { Public } from '@kw/platform-http';
import { loadConfig } from '@kw/platform-config';
import { defineComponent, type ComponentDefinition } from './component.js';
import { leafGatewayComponent } from './gateway.component.js';
import { runPlatform, type RunningPlatform } from './run-platform.js';
import { resolveTargets } from './targets.js';

// Two stand-in components with no database plane, so the composition root runs without
// PostgreSQL: what is tested is which modules a process composes, not the components.
@Public()
@Controller('api/composition-probe')
class ProbeController {
  @Get()
  answer() {
    return { servedBy: 'files-http' };
  }
}
@Module({ controllers: [ProbeController] })
class FilesHttpModule {}
@Module({})
class FilesModule {}
@Module({})
class ChatModule {}

const files = defineComponent({ name: 'files', planes: [], module: FilesModule, httpModule: FilesHttpModule });
const chat = defineComponent({ name: 'chat', planes: [], module: ChatModule });
const known: ComponentDefinition[] = [leafGatewayComponent, files, chat];

const running: RunningPlatform[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.close()));
});

async function start(env: Record<string, string>): Promise<RunningPlatform> {
  const platform = await runPlatform({
    binary: 'test',
    components: known,
    defaultTargets: ['gateway', 'files', 'chat'],
    env: { RUN_MODE: 'embedded', PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env },
    ownProcess: false,
    logDestination: new PassThrough(),
  });
  running.push(platform);
  return platform;
}

describe('resolveTargets', () => {
  const config = (env: Record<string, string> = {}) => loadConfig({ RUN_MODE: 'embedded', ...env });

  it('starts the binary default when TARGETS is unset, and TARGETS when set', () => {
    expect(resolveTargets(config(), known, ['files']).map((c) => c.name)).toEqual(['files']);
    expect(resolveTargets(config({ TARGETS: 'chat' }), known, ['files']).map((c) => c.name)).toEqual(['chat']);
    expect(resolveTargets(config(), known, () => ['gateway', 'chat']).map((c) => c.name)).toEqual(['gateway', 'chat']);
  });

  it('reads `all` as every component the binary knows', () => {
    expect(resolveTargets(config({ TARGETS: 'all' }), known, []).map((c) => c.name)).toEqual([
      'gateway',
      'files',
      'chat',
    ]);
  });

  it('refuses a component the binary does not have, naming the ones it has', () => {
    expect(() => resolveTargets(config({ TARGETS: 'files,search' }), known, [])).toThrow(
      'TARGETS names components this binary does not have: search (known: gateway, files, chat)',
    );
  });
});

describe('runPlatform composition', () => {
  it("the API process serves every component's HTTP routes and reports each component healthy over the transport", async () => {
    const platform = await start({});
    expect(platform.components).toEqual(['gateway', 'files', 'chat']);

    const probe = await fetch(`${platform.url}/api/composition-probe`);
    expect(probe.status).toBe(200);
    expect(await probe.json()).toEqual({ servedBy: 'files-http' });

    const health = (await (await fetch(`${platform.url}/api/health`)).json()) as {
      status: string;
      components: Array<{ component: string; status: string }>;
    };
    expect(health.components.map((c) => [c.component, c.status])).toEqual([
      ['files', 'ok'],
      ['chat', 'ok'],
    ]);
    expect(health.status).toBe('ok');
    expect((await fetch(`${platform.url}/readyz`)).status).toBe(200);
  });

  it('a process without the gateway serves probes and metrics but no API route', async () => {
    const platform = await start({ TARGETS: 'files' });
    expect(platform.components).toEqual(['files']);
    expect((await fetch(`${platform.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${platform.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${platform.url}/api/composition-probe`)).status).toBe(404);
    expect((await fetch(`${platform.url}/api/docs`)).status).toBe(404);
  });

  it('a component that is not started is reported unavailable, not hidden', async () => {
    const platform = await start({ TARGETS: 'gateway,files' });
    const health = (await (await fetch(`${platform.url}/api/health`)).json()) as {
      status: string;
      components: Array<{ component: string; status: string }>;
    };
    expect(health.status).toBe('degraded');
    expect(health.components.find((c) => c.component === 'chat')?.status).toBe('unavailable');
  });

  it('a target this binary lacks, or no component at all, is a start-up error thrown to a caller that does not own the process', async () => {
    await expect(start({ TARGETS: 'search' })).rejects.toThrow(
      /TARGETS names components this binary does not have: search/,
    );
    await expect(start({ TARGETS: 'nope' })).rejects.toThrow(/TARGETS: each value in TARGETS must be one of/);
  });

  it('close() stops serving', async () => {
    const platform = await start({});
    const url = platform.url;
    running.splice(running.indexOf(platform), 1);
    await platform.close();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
