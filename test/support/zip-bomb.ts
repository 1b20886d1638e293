import { once } from 'node:events';
import { createDeflateRaw, deflateRawSync } from 'node:zlib';

/** One entry of a hand-made zip: its data as stored in the zip, and the uncompressed size it declares. */
export interface RawZipEntry {
  name: string;
  /** 0 stored, 8 deflated (raw deflate). */
  method: 0 | 8;
  data: Uint8Array;
  /** What the headers declare, true or not. */
  size: number;
}

/**
 * A zip written by hand, so a test can make one that lies (a declared size that is not the
 * real one) or that holds an entry far larger than itself: what an importer must survive.
 * CRCs are 0 (the platform's reader checks SHA-256s of its own instead).
 */
export function rawZip(entries: readonly RawZipEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, Buffer.from(e.data.buffer, e.data.byteOffset, e.data.byteLength));
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(e.method, 10);
    header.writeUInt32LE(e.data.length, 20);
    header.writeUInt32LE(e.size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    offset += 30 + name.length + e.data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}

/** Every entry of `files` deflated, each declaring its true size. */
export const deflatedEntries = (files: Record<string, Uint8Array>): RawZipEntry[] =>
  Object.entries(files).map(([name, bytes]) => ({
    name,
    method: 8,
    data: deflateRawSync(bytes),
    size: bytes.length,
  }));

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
