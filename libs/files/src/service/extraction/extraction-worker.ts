import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import type { FileKind } from '../../domain/file-kind.js';
import { extractText } from './extract-text.js';
import type { ExtractedText, ExtractionProgress } from './extracted-text.js';
import { ExtractionError, type ExtractionFailureReason } from './extraction-errors.js';
import type { ExtractionLimits } from './extraction-limits.js';

/** What run-extraction.ts posts to this worker: one file at a time. */
export interface ExtractionJob {
  bytes: Uint8Array;
  kind: FileKind;
  limits: ExtractionLimits;
}

/**
 * What it posts back for a job: progress, then one answer. `heapBytes` (the heap in use after
 * the answer was made) tells the pool whether the worker is worth keeping for the next file.
 */
export type ExtractionMessage =
  | { type: 'progress'; progress: ExtractionProgress }
  | { type: 'done'; result: ExtractedText; heapBytes: number }
  | { type: 'failed'; reason: ExtractionFailureReason; message: string };

// The worker thread of runExtraction: one file per message, answered before the next comes
// (run-extraction.ts sends the next only after the answer, and drops the worker after any
// failure). Anything but an ExtractionError stays uncaught and reaches the parent as the
// worker's 'error' event, which ends the worker.
const port = parentPort!;
const post = (message: ExtractionMessage) => port.postMessage(message);
port.on('message', async ({ bytes, kind, limits }: ExtractionJob) => {
  try {
    const result = await extractText(bytes, kind, limits, (progress) => post({ type: 'progress', progress }));
    post({ type: 'done', result, heapBytes: getHeapStatistics().used_heap_size });
  } catch (error) {
    if (!(error instanceof ExtractionError)) throw error;
    post({ type: 'failed', reason: error.reason, message: error.message });
  }
});
