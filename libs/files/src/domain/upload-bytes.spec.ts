import { PassThrough, Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { HeadCapture, pipeIntoHead } from './upload-bytes.js';

/** What storage does with the head: reads it to its end, or fails with its error. */
async function readAll(head: HeadCapture): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of head) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

describe('pipeIntoHead', () => {
  it('passes every byte of a source that ends normally, keeping the head, and fails nothing', async () => {
    const source = Readable.from([Buffer.from('hello '), Buffer.from('world')]);
    const head = new HeadCapture();
    let mapped = 0;
    pipeIntoHead(source, head, (err) => {
      mapped += 1;
      return err;
    });
    expect((await readAll(head)).toString()).toBe('hello world');
    await finished(source);
    expect(Buffer.from(head.head).toString()).toBe('hello world');
    expect(head.errored).toBeNull();
    expect(mapped).toBe(0);
  });

  it("fails the head with the source's error", async () => {
    const source = new PassThrough();
    const head = new HeadCapture();
    pipeIntoHead(source, head);
    source.write('part of it');
    const failure = new Error('the staged read failed');
    setImmediate(() => source.destroy(failure));
    await expect(readAll(head)).rejects.toBe(failure);
  });

  it('fails the head when the source ends early, without an error', async () => {
    const source = new PassThrough();
    const head = new HeadCapture();
    pipeIntoHead(source, head);
    source.write('part of it');
    setImmediate(() => source.destroy());
    await expect(readAll(head)).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('fails the head with what `failure` makes of the error, also when the source failed before the call', async () => {
    const source = new PassThrough();
    source.on('error', () => undefined);
    source.destroy(new Error('Part terminated early'));
    await new Promise((resolve) => setImmediate(resolve));
    const head = new HeadCapture();
    const answer = new Error('The multipart body is malformed');
    pipeIntoHead(source, head, (err) => (err.message === 'Part terminated early' ? answer : err));
    await expect(readAll(head)).rejects.toBe(answer);
  });
});
