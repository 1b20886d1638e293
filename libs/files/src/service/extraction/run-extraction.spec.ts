import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FileKind } from '../../domain/file-kind.js';
import { makeLargeDocx, makeManyPagePdf } from '../../../../../test/fixtures/files/make-fixtures.mjs';
import { assertArchiveWithinLimits } from './archive-guard.js';
import type { ExtractionProgress } from './extracted-text.js';
import { ExtractionError } from './extraction-errors.js';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits } from './extraction-limits.js';
import { idleExtractionWorkers, runExtraction } from './run-extraction.js';

// The real worker thread, started from the TypeScript sources (see workerEntry in
// run-extraction.ts); run-extraction.compiled.spec.ts starts it from compiled JavaScript.
const FIXTURES = new URL('../../../../../test/fixtures/files/', import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));
const limits = (overrides: Partial<ExtractionLimits> = {}): ExtractionLimits => ({
  ...DEFAULT_EXTRACTION_LIMITS,
  ...overrides,
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the extraction should have failed'),
    (error: unknown) => error,
  );
}

/** After every failure: the process still extracts a normal file through a fresh worker. */
async function expectStillWorking(): Promise<void> {
  const { text } = await runExtraction(fixture('sample.pdf'), 'pdf', limits());
  expect(text).toContain('zanzibarite');
}

describe('runExtraction (worker thread)', () => {
  it('extracts each format in the worker, with the PDF progress posted back', async () => {
    const progress: ExtractionProgress[] = [];
    const pdf = await runExtraction(fixture('sample.pdf'), 'pdf', limits(), { onProgress: (p) => progress.push(p) });
    expect(pdf).toMatchObject({ pages: 2, truncated: false });
    expect(pdf.text).toContain('zanzibarite');
    expect(progress.at(-1)).toEqual({ pagesDone: 2, pagesTotal: 2 });

    const others: [string, FileKind, string][] = [
      ['sample.docx', 'docx', 'quokkafern'],
      ['sample.html', 'html', 'marmalith'],
      ['sample.json', 'json', 'glimmerwold'],
      ['sample.png', 'image', ''],
    ];
    for (const [name, kind, word] of others)
      expect((await runExtraction(fixture(name), kind, limits())).text).toContain(word);
  });

  it('gives the next file to a worker that answered cleanly, never to one that failed', async () => {
    await runExtraction(fixture('sample.txt'), 'text', limits());
    const waiting = idleExtractionWorkers();
    expect(waiting).toBeGreaterThanOrEqual(1);
    const reusing = runExtraction(fixture('sample.pdf'), 'pdf', limits());
    expect(idleExtractionWorkers()).toBe(waiting - 1); // taken at once, not started anew
    expect((await reusing).text).toContain('zanzibarite');
    expect(idleExtractionWorkers()).toBe(waiting);

    // Another heap cap needs a worker started with it: the waiting ones stay waiting.
    const other = runExtraction(fixture('sample.txt'), 'text', limits({ maxOldGenerationSizeMb: 64 }));
    expect(idleExtractionWorkers()).toBe(waiting);
    await other;

    // A failed file's worker is terminated, not kept: one fewer waits afterwards.
    const before = idleExtractionWorkers();
    await rejection(runExtraction(fixture('malformed.pdf'), 'pdf', limits()));
    expect(idleExtractionWorkers()).toBe(before - 1);
  });

  it('fails a malformed PDF with malformed', async () => {
    const error = await rejection(runExtraction(fixture('malformed.pdf'), 'pdf', limits()));
    expect(error).toBeInstanceOf(ExtractionError);
    expect(error).toMatchObject({ reason: 'malformed' });
    await expectStillWorking();
  });

  it('fails the zip bomb with archive_too_large', async () => {
    const error = await rejection(runExtraction(fixture('zip-bomb.docx'), 'docx', limits()));
    expect(error).toMatchObject({ name: 'ExtractionError', reason: 'archive_too_large' });
    await expectStillWorking();
  });

  it('fails a DOCX of 199 MiB of XML at about 110:1, within the archive limits, with archive_too_large', async () => {
    // 1.8 MB on the wire. Its parsed DOM needs gigabytes: before maxDocxXmlBytes it ran into the
    // heap limit after a minute and more of CPU, with JSZip's buffers outside the heap.
    const bomb = makeLargeDocx(199, { words: [1, 1], sessions: 1 });
    await assertArchiveWithinLimits(bomb, limits().maxUnpackedBytes);
    const error = await rejection(runExtraction(bomb, 'docx', limits()));
    expect(error).toMatchObject({ name: 'ExtractionError', reason: 'archive_too_large' });
    await expectStillWorking();
  }, 180_000);

  it('reads ordinary large DOCX files (12 and 48 MiB of XML, long reports) under the default limits', async () => {
    // Before: mammoth's DOM of 11 MiB of this XML passed the 256 MiB heap (too_much_memory).
    const whole = await runExtraction(makeLargeDocx(12), 'docx', limits());
    expect(whole.text.startsWith('largedocx\n\n')).toBe(true);
    expect(whole.text.length).toBeGreaterThan(3_500_000);
    expect(whole.truncated).toBe(false);
    // 48 MiB holds more text than a file keeps: cut at maxTextChars, as any long text.
    const cut = await runExtraction(makeLargeDocx(48), 'docx', limits());
    expect(cut.text.startsWith('largedocx\n\n')).toBe(true);
    expect(cut).toMatchObject({ truncated: true, text: expect.any(String) });
    expect(cut.text).toHaveLength(limits().maxTextChars);
  }, 180_000);

  it('fails a 10,000-page PDF with too_many_pages, before reading its pages', async () => {
    const progress: ExtractionProgress[] = [];
    const error = await rejection(
      runExtraction(makeManyPagePdf(10_000), 'pdf', limits(), { onProgress: (p) => progress.push(p) }),
    );
    expect(error).toMatchObject({ reason: 'too_many_pages' });
    expect(error).toHaveProperty('message', expect.stringContaining('10000 pages'));
    expect(progress).toEqual([]);
    await expectStillWorking();
  });

  it('terminates a slow extraction at timeoutMs with timeout', async () => {
    // Reading 10,000 pages takes seconds; 1 ms is over before the worker has even started.
    const slow = limits({ maxPages: 20_000, timeoutMs: 1 });
    const error = await rejection(runExtraction(makeManyPagePdf(10_000), 'pdf', slow));
    expect(error).toMatchObject({ reason: 'timeout' });
    await expectStillWorking();
  });

  it('fails with too_much_memory when the worker runs out of heap', async () => {
    // A million small objects, once parsed and pretty-printed, need far more than 8 MB of heap.
    const json = new TextEncoder().encode(`[${Array(1_000_000).fill('{"a":1}').join(',')}]`);
    const tight = limits({ maxOldGenerationSizeMb: 8, maxTextChars: 50_000_000 });
    const error = await rejection(runExtraction(json, 'json', tight));
    expect(error).toMatchObject({ reason: 'too_much_memory' });
    await expectStillWorking();
  });

  it('terminates the worker when the signal aborts, rejecting with its reason', async () => {
    const controller = new AbortController();
    const pending = runExtraction(makeManyPagePdf(10_000), 'pdf', limits({ maxPages: 20_000 }), {
      signal: controller.signal,
      onProgress: ({ pagesDone }) => {
        if (pagesDone >= 1) controller.abort(new Error('the upload was deleted'));
      },
    });
    expect(await rejection(pending)).toEqual(new Error('the upload was deleted'));
    await expectStillWorking();
  });

  it('does not start a worker for an already aborted signal', async () => {
    const reason = new Error('cancelled before start');
    expect(
      await rejection(runExtraction(fixture('sample.pdf'), 'pdf', limits(), { signal: AbortSignal.abort(reason) })),
    ).toBe(reason);
  });

  it('fails the extraction, not the process, when a progress listener throws', async () => {
    const error = await rejection(
      runExtraction(fixture('sample.pdf'), 'pdf', limits(), {
        onProgress: () => {
          throw new Error('listener bug');
        },
      }),
    );
    expect(error).toEqual(new Error('listener bug'));
    await expectStillWorking();
  });
});
