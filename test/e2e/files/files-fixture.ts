import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { authHeaders } from '../../support/accounts.js';
import { ROOT } from '../../support/processes.js';
import { startFragmentsPlatform } from '../fragments/fragments-fixture.js';

export const FIXTURES = path.join(ROOT, 'test/fixtures/files');
export const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The supported kinds, each with the word only that file holds (test/fixtures/files/README.md). */
export const SAMPLES = [
  { file: 'sample.pdf', mime: 'application/pdf', kind: 'pdf', word: 'zanzibarite' },
  {
    file: 'sample.docx',
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    kind: 'docx',
    word: 'quokkafern',
  },
  { file: 'sample.html', mime: 'text/html', kind: 'html', word: 'marmalith' },
  { file: 'sample.md', mime: 'text/markdown', kind: 'markdown', word: 'tundraquill' },
  { file: 'sample.txt', mime: 'text/plain', kind: 'text', word: 'pelicanvex' },
  { file: 'sample.csv', mime: 'text/csv', kind: 'csv', word: 'oxbowmint' },
  { file: 'sample.json', mime: 'application/json', kind: 'json', word: 'glimmerwold' },
] as const;

/** An embedded platform with the files routes, and a client for them. */
export async function startFilesPlatform(env: Record<string, string> = {}) {
  const p = await startFragmentsPlatform(env);
  const base = p.platform.url;

  /** Uploads with undici's FormData (what `fetch` users send); extra fields before the file. */
  async function upload(
    auth: string | undefined,
    fields: Record<string, string>,
    files: Array<{ name: string; bytes: Uint8Array; mime?: string }>,
  ) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    for (const f of files)
      form.append('file', new Blob([f.bytes], { type: f.mime ?? 'application/octet-stream' }), f.name);
    const res = await fetch(`${base}/api/files/upload`, {
      method: 'POST',
      headers: auth ? authHeaders(auth) : {},
      body: form,
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  }

  /** Polls the status route until the file leaves `processing`. */
  async function settled(auth: string, fileId: string, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await p.api.ok(auth, 'GET', `/api/files/${fileId}/status`, undefined, 200);
      if (status.status !== 'processing') return status;
      if (Date.now() > deadline) throw new Error(`file ${fileId} still processing after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function download(auth: string | undefined, pathname: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${base}${pathname}`, { headers: { ...(auth ? authHeaders(auth) : {}), ...headers } });
    return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  return { ...p, base, upload, settled, download };
}
