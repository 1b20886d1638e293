import crypto from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** The part of s3rver 3.7.1 (untyped CommonJS) the fixture uses. */
interface S3rverObject {
  content: Readable | null;
  range?: { start: number; end: number };
}
interface S3rverStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  getObject(bucket: string, key: string, options?: { start?: number; end?: number }): Promise<S3rverObject | null>;
}
interface S3rver {
  store: S3rverStore;
  callback(): http.RequestListener;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: {
  directory: string;
  silent: boolean;
}) => S3rver;

export interface S3rverFixture {
  endpoint: string;
  /** The S3 operations received, in order (see `operationOf`). */
  requests: string[];
  /** Ids of the multipart uploads of `bucket` begun and neither completed nor aborted. */
  openUploads(bucket: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * s3rver in this process on 127.0.0.1 (a free port), storing in a temporary folder: the real
 * AWS SDK talks HTTP to it. s3rver 3.7.1 lacks three things S3 has, which the fixture adds:
 * AbortMultipartUpload, the one-byte range `bytes=0-0`, and (on Node >= 17) listing tokens.
 */
export async function startS3rver(): Promise<S3rverFixture> {
  const directory = await mkdtemp(path.join(tmpdir(), 'kw-s3rver-'));
  const s3rver = new S3rver({ directory, silent: true });
  const uploadsOf = (bucket: string) => s3rver.store.getResourcePath(bucket, undefined, 'uploads');
  serveFirstByteRange(s3rver.store);
  const restoreCrypto = letS3rverUseDes();
  const handle = s3rver.callback();
  const requests: string[] = [];

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://s3rver');
    requests.push(operationOf(req.method ?? '', url.searchParams));
    const uploadId = url.searchParams.get('uploadId');
    if (req.method === 'DELETE' && uploadId) {
      // AbortMultipartUpload (s3rver answers 405): drop the upload's parts from s3rver's store.
      const bucket = url.pathname.split('/')[1] ?? '';
      req.resume();
      rm(path.join(uploadsOf(bucket), path.basename(uploadId)), { recursive: true, force: true }).then(
        () => res.writeHead(204).end(),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    openUploads: (bucket) =>
      readdir(uploadsOf(bucket)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        throw err;
      }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      restoreCrypto();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Names the S3 operations the tests look for; others by method. */
function operationOf(method: string, query: URLSearchParams): string {
  if (method === 'POST' && query.has('uploads')) return 'CreateMultipartUpload';
  if (method === 'PUT' && query.has('uploadId')) return 'UploadPart';
  if (method === 'POST' && query.has('uploadId')) return 'CompleteMultipartUpload';
  if (method === 'DELETE' && query.has('uploadId')) return 'AbortMultipartUpload';
  if (method === 'GET' && query.get('list-type') === '2') {
    return query.has('continuation-token') ? 'ListObjectsV2 (continued)' : 'ListObjectsV2';
  }
  return method;
}

/** s3rver reads `bytes=0-0` as "from byte 0 to the end" (`end || Infinity`); S3 sends one byte. */
function serveFirstByteRange(store: S3rverStore): void {
  const getObject = store.getObject.bind(store);
  store.getObject = async (bucket, key, options) => {
    const object = await getObject(bucket, key, options);
    if (options?.end !== 0 || !object?.content || !object.range) return object;
    object.content.destroy();
    object.range.end = 0;
    object.content = createReadStream(store.getResourcePath(bucket, key, 'object'), { start: 0, end: 0 });
    return object;
  };
}

type CipherFactory = (algorithm: string, key: Buffer, ...rest: unknown[]) => unknown;

/**
 * s3rver seals ListObjectsV2 continuation tokens with single DES, which OpenSSL 3 offers only
 * in its legacy provider: every truncated listing would answer 500. Two-key triple DES with
 * both keys equal computes single DES, so 'des' is redirected to it (nothing else changes)
 * until the fixture closes. Returns the undo.
 */
function letS3rverUseDes(): () => void {
  const api = crypto as unknown as { createCipheriv: CipherFactory; createDecipheriv: CipherFactory };
  const { createCipheriv, createDecipheriv } = api;
  const viaTripleDes =
    (original: CipherFactory): CipherFactory =>
    (algorithm, key, ...rest) =>
      algorithm === 'des'
        ? original('des-ede-cbc', Buffer.concat([key, key]), ...rest)
        : original(algorithm, key, ...rest);
  api.createCipheriv = viaTripleDes(createCipheriv);
  api.createDecipheriv = viaTripleDes(createDecipheriv);
  return () => {
    api.createCipheriv = createCipheriv;
    api.createDecipheriv = createDecipheriv;
  };
}
