import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readJson } from '../support/http.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../support/processes.js';

/**
 * The README's first command: the whole platform in one process on an empty data folder,
 * with nothing else installed (its own PostgreSQL server from the npm package's binaries,
 * in-process transport).
 */
describe('embedded mode', () => {
  const dataDir = tempDir('kw-embedded-');
  let platform: PlatformProcess | undefined;

  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts on an empty data folder and serves health, version, docs and the viewer', async () => {
    platform = await startEmbedded(dataDir, {}, { newCluster: true });
    expect(platform.logs.some((l) => l.msg === 'embedded PostgreSQL cluster created')).toBe(true);
    expect(platform.logs.some((l) => l.msg === 'embedded PostgreSQL started')).toBe(true);
    const health = await fetch(`${platform.url}/api/health`);
    expect(health.status).toBe(200);
    const body = (await readJson(health)) as {
      status: string;
      ready: boolean;
      runMode: string;
      components: {
        component: string;
        status: string;
        dependencies: { name: string; ok: boolean; optional?: boolean; detail?: string }[];
      }[];
    };
    // Ready (200), and `degraded` only because the embedded default has no model provider: the
    // chat component says which variable to set (docs/chat.md).
    expect(body.status).toBe('degraded');
    expect(body.ready).toBe(true);
    expect(body.runMode).toBe('embedded');
    expect(body.components.map((c) => c.component).sort()).toEqual([
      'agent-auth',
      'chat',
      'files',
      'fragments',
      'search',
      'webhooks',
      'workspaces',
    ]);
    for (const c of body.components) {
      expect(c.status, c.component).toBe(c.component === 'chat' ? 'degraded' : 'ok');
      expect(c.dependencies).toContainEqual(expect.objectContaining({ name: 'postgres', ok: true }));
    }
    const chat = body.components.find((c) => c.component === 'chat')!;
    expect(chat.dependencies).toContainEqual(
      expect.objectContaining({
        name: 'model-providers',
        ok: false,
        optional: true,
        detail: expect.stringContaining('CHAT_PROVIDERS'),
      }),
    );
    const models = await fetch(`${platform.url}/api/v1/models`, { headers: { authorization: 'Bearer x' } });
    expect(models.status).toBe(401);

    const version = await fetch(`${platform.url}/api/version`);
    expect(version.status).toBe(200);
    expect(await readJson(version)).toMatchObject({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      runMode: 'embedded',
      node: process.version,
    });

    const docs = await fetch(`${platform.url}/api/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('application/json');
    const document = (await readJson(docs)) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/health', '/api/version']));
    expect(document.paths['/api/health'].get).toBeDefined();
    // Per-route security: authenticated by default (token or session), public routes say so.
    expect((document as unknown as { security: unknown }).security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(document.paths['/api/health'].get).toMatchObject({ security: [] });
    expect(document.paths['/api/auth/sign-in'].post).toMatchObject({ security: [] });
    expect(document.paths['/api/auth/sign-out'].post).toMatchObject({ security: [{ session: [] }] });
    expect(document.paths['/api/workspaces'].get).not.toHaveProperty('security');
    // Bearer-token surfaces (a session cookie is not read there), and MCP, which checks its own.
    for (const [path, method] of [
      ['/api/v1/chat/completions', 'post'],
      ['/api/v1/models', 'get'],
      ['/api/workspace-files/bytes', 'post'],
      ['/api/mcp', 'post'],
    ] as const)
      expect(document.paths[path][method], path).toMatchObject({ security: [{ bearer: [] }] });
    expect(document.paths['/api/v1/vault/secrets'].get).not.toHaveProperty('security');
    expect(JSON.stringify(document)).not.toContain('x-kw-public');
    // Generated from the DTOs, not written by hand.
    expect(document.components.schemas).toHaveProperty('HealthDto');
    expect(document.components.schemas).toHaveProperty('VersionDto');

    const viewer = await fetch(`${platform.url}/docs/api-reference`);
    expect(viewer.status).toBe(200);
    const html = await viewer.text();
    expect(html).toContain('<html');
    // Assets come from the package: no script or stylesheet from another origin.
    const external = [...html.matchAll(/(?:src|href)="(https?:)?\/\/[^"]+"/g)].map((m) => m[0]);
    expect(external).toEqual([]);
    const scripts = [...html.matchAll(/src="([^"]+\.js)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      const asset = await fetch(new URL(src, `${platform.url}/docs/api-reference/`));
      expect(asset.status, src).toBe(200);
    }

    const metrics = await fetch(`${platform.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('kw_http_request_duration_seconds');
  });

  it('keeps its data across a restart on the same folder and re-applies no migration', async () => {
    const first = platform!;
    const installation = first.logs.find((l) => l.msg === 'installation')?.installationId;
    expect(installation).toEqual(expect.any(String));
    const appliedAtFirst = first.logs.filter((l) => l.msg === 'migration applied');
    expect(appliedAtFirst.length).toBeGreaterThan(0);

    const code = await first.stop();
    // The reason, if it did not exit cleanly: its last words.
    expect(code, `${first.stderr.join('')}\n${JSON.stringify(first.logs.slice(-15))}`).toBe(0);
    platform = await startEmbedded(dataDir);
    expect(platform.logs.filter((l) => l.msg === 'migration applied')).toEqual([]);
    expect(platform.logs.find((l) => l.msg === 'installation')?.installationId).toBe(installation);
    expect((await fetch(`${platform.url}/api/health`)).status).toBe(200);
  });

  it('starts again after being killed: the database server the killed process left is shut down first', async () => {
    const installation = platform!.logs.find((l) => l.msg === 'installation')?.installationId;
    await platform!.stop('SIGKILL');
    platform = await startEmbedded(dataDir);
    expect(
      platform.logs.some((l) => l.msg === 'stopping an embedded PostgreSQL left running by an earlier process'),
    ).toBe(true);
    expect(platform.logs.find((l) => l.msg === 'installation')?.installationId).toBe(installation);
    expect((await fetch(`${platform.url}/api/health`)).status).toBe(200);
  });

  it('exits 0 on SIGTERM', async () => {
    expect(await platform!.stop('SIGTERM')).toBe(0);
    platform = undefined;
  });
});
