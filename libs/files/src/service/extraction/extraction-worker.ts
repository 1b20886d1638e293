import { parentPort, workerData } from 'node:worker_threads';
import type { FileKind } from '../../domain/file-kind.js';
import { extractText } from './extract-text.js';
import type { ExtractedText, ExtractionProgress } from './extracted-text.js';
import { ExtractionError, type ExtractionFailureReason } from './extraction-errors.js';
import type { ExtractionLimits } from './extraction-limits.js';

/** What run-extraction.ts starts this worker with. */
export interface ExtractionJob {
  bytes: Uint8Array;
  kind: FileKind;
  limits: ExtractionLimits;
}

/** What it posts back: progress, then one answer. */
export type ExtractionMessage =
  | { type: 'progress'; progress: ExtractionProgress }
  | { type: 'done'; result: ExtractedText }
  | { type: 'failed'; reason: ExtractionFailureReason; message: string };

// The worker thread of runExtraction: one file, then it is terminated. Anything but an
// ExtractionError stays uncaught and reaches the parent as the worker's 'error' event.
const port = parentPort!;
const post = (message: ExtractionMessage) => port.postMessage(message);
const { bytes, kind, limits } = workerData as ExtractionJob;
try {
  post({
    type: 'done',
    result: await extractText(bytes, kind, limits, (progress) => post({ type: 'progress', progress })),
  });
} catch (error) {
  if (!(error instanceof ExtractionError)) throw error;
  post({ type: 'failed', reason: error.reason, message: error.message });
}
