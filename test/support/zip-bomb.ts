import { once } from 'node:events';
import { createDeflateRaw } from 'node:zlib';
import { makeZip, type ZipEntrySpec } from '../fixtures/files/make-fixtures.mjs';

/** An entry whose body was deflated elsewhere (deflatedZeros), declaring a size, true or not. */
export interface DeflatedEntry {
  name: string;
  deflated: Uint8Array;
  declaredSize: number;
}

/**
 * `files` zipped as they are, with `odd` in place of the entry of its name (or added): how a
 * test makes an archive that lies about a size, or holds an entry far larger than itself.
 */
export function zipWith(files: Record<string, Uint8Array>, odd?: DeflatedEntry): Uint8Array {
  const entries: ZipEntrySpec[] = Object.entries(files).map(([name, data]) =>
    name === odd?.name ? odd : { name, data },
  );
  if (odd && !(odd.name in files)) entries.push(odd);
  return makeZip(entries);
}

/** `bytes` zero bytes, raw-deflated (1.5 GiB makes about 7 MB, in half a second), never held uncompressed. */
export async function deflatedZeros(bytes: number): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 1 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const chunk = Buffer.alloc(16 * 1024 * 1024);
  for (let left = bytes; left > 0; left -= chunk.length)
    if (!deflate.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await once(deflate, 'drain');
  deflate.end();
  await once(deflate, 'end');
  return Buffer.concat(out);
}
