import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminEnv, authHeaders, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';
import { fixture, sha256 } from './files-fixture.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What a SIGKILL leaves behind, and the restart on the same data folder: a file being processed
 * is taken over once its lease runs out and ends `ready`, a cancelled one stays cancelled; an upload cut mid-stream (its
 * reservation and partial blob) and a blob without a row are swept; finished files are untouched.
 */
describe('files after the embedded process was killed', () => {
  const dataDir = tempDir('kw-files-recovery-');
  const admin = adminEnv();
  const env = {
    ...admin,
    RATE_LIMIT_PER_CREDENTIAL: '1000000',
    RATE_LIMIT_PER_ADDRESS: '1000000',
    FILES_PROCESSING_LEASE_MS: '2000',
    FILES_SWEEP_AFTER_MS: '1000',
  };
  let platform: PlatformProcess | undefined;
  let hanging: Server | undefined;

  afterAll(async () => {
    await platform?.stop();
    hanging?.closeAllConnections();
    hanging?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes processing and sweeps the interrupted upload and the orphan blob', async () => {
    // A model endpoint that never answers embeddings: the file's embedding is surely under way at the kill.
    hanging = createServer((req, res) => {
      if (req.url?.endsWith('/embeddings')) return; // never answered
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not here"}}');
    });
    await new Promise<void>((r) => hanging!.listen(0, '127.0.0.1', r));
    const aiUrl = `http://127.0.0.1:${(hanging.address() as { port: number }).port}/v1`;
    platform = await startEmbedded(dataDir, { ...env, AI_PROVIDER: 'openai', AI_BASE_URL: aiUrl, AI_API_KEY: 'k' });
    const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    let api = workspacesApi(platform.url);
    const ws = (await api.createWorkspace(token)).id as string;

    // A finished file (an image: no model call) that must survive everything below.
    const keep = await api.ok(
      token,
      'POST',
      '/api/workspace-files/bytes',
      {
        workspaceId: ws,
        fileName: 'keep.png',
        mimeType: 'image/png',
        base64: fixture('sample.png').toString('base64'),
      },
      201,
    );
    await expect
      .poll(async () => (await api.ok(token, 'GET', `/api/files/${keep.fileId}/status`, undefined, 200)).status)
      .toBe('ready');

    // A file whose processing hangs on the model.
    const text = await api.ok(
      token,
      'POST',
      '/api/workspace-files/bytes',
      {
        workspaceId: ws,
        fileName: 'resume.txt',
        mimeType: 'text/plain',
        base64: fixture('sample.txt').toString('base64'),
      },
      201,
    );

    // Another, cancelled while it hangs: it stays cancelled, also after the restart.
    const cancelled = await api.ok(
      token,
      'POST',
      '/api/workspace-files/bytes',
      {
        workspaceId: ws,
        fileName: 'cancel.md',
        mimeType: 'text/markdown',
        base64: fixture('sample.md').toString('base64'),
      },
      201,
    );
    const stopped = await api.ok(token, 'POST', `/api/files/${cancelled.fileId}/cancel`, undefined, 200);
    expect(stopped).toMatchObject({ status: 'cancelled' });
    expect((await api.call(token, 'POST', `/api/files/${cancelled.fileId}/cancel`)).status).toBe(409);

    // An upload cut mid-stream: the client sends the start of a file, then nothing.
    const boundary = '----kw-cut';
    let hold!: () => void;
    const stalled = new Promise<void>((r) => (hold = r));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${ws}\r\n` +
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n\r\n`,
          ),
        );
        controller.enqueue(new Uint8Array(256 * 1024).fill(7));
        await stalled;
      },
    });
    const cut = fetch(`${platform.url}/api/files/upload`, {
      method: 'POST',
      headers: { ...authHeaders(token), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit).catch(() => undefined);
    const partials = path.join(dataDir, 'files', '.partial');
    await expect.poll(() => (existsSync(partials) ? readdirSync(partials).length : 0), { timeout: 10_000 }).toBe(1);

    // A blob a crash left without its row.
    const orphan = path.join(dataDir, 'files', 'files', ws, randomUUID());
    mkdirSync(path.dirname(orphan), { recursive: true });
    writeFileSync(orphan, 'orphan bytes');

    expect((await api.ok(token, 'GET', `/api/files/${text.fileId}/status`, undefined, 200)).status).toBe('processing');
    platform.child.kill('SIGKILL');
    await platform.exited;
    hold();
    await cut;
    await sleep(1_500); // older than FILES_SWEEP_AFTER_MS

    // Same folder, the built-in provider this time.
    platform = await startEmbedded(dataDir, env);
    api = workspacesApi(platform.url);
    const done = async () => (await api.ok(token, 'GET', `/api/files/${text.fileId}/status`, undefined, 200)).status;
    await expect.poll(done, { timeout: 30_000, interval: 200 }).toBe('ready');
    const found = await api.ok(token, 'GET', `/api/files/search?workspaceId=${ws}&q=pelicanvex`, undefined, 200);
    expect(found.items.map((h: any) => h.file.id)).toEqual([text.fileId]);

    expect((await api.ok(token, 'GET', `/api/files/${cancelled.fileId}/status`, undefined, 200)).status).toBe(
      'cancelled',
    );
    await expect.poll(() => existsSync(orphan), { timeout: 10_000 }).toBe(false);
    expect(readdirSync(partials)).toEqual([]);
    const names = await api.ok(token, 'GET', `/api/files/search?workspaceId=${ws}&q=cut.bin`, undefined, 200);
    expect(names.totalCount).toBe(0);
    const kept = await fetch(`${platform.url}/api/files/${keep.fileId}/download`, { headers: authHeaders(token) });
    expect(sha256(new Uint8Array(await kept.arrayBuffer()))).toBe(sha256(fixture('sample.png')));
    expect(readdirSync(path.join(dataDir, 'files', 'files', ws)).sort()).toEqual(
      [keep.fileId, text.fileId, cancelled.fileId].sort(),
    );
  }, 120_000);
});
