import { Worker } from 'node:worker_threads';
import type { FileKind } from '../../domain/file-kind.js';
import type { ExtractedText, ExtractionProgress } from './extracted-text.js';
import { ExtractionError } from './extraction-errors.js';
import type { ExtractionLimits } from './extraction-limits.js';
import type { ExtractionJob, ExtractionMessage } from './extraction-worker.js';

export interface RunExtractionOptions {
  /** Aborting terminates the worker; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  onProgress?: (progress: ExtractionProgress) => void;
}

/**
 * The worker module beside this one. Compiled (dist/, plain node) that is extraction-worker.js.
 * When this module runs from its TypeScript source (vitest transpiles in its own thread, and a
 * worker thread does not inherit that), the worker is extraction-worker.ts, started with the
 * module hooks of typescript-hooks.mjs registered: they transpile .ts with the `typescript`
 * devDependency, which is there wherever the sources are.
 */
function workerEntry(): { url: URL; execArgv: string[] } {
  if (!import.meta.url.endsWith('.ts'))
    return { url: new URL('./extraction-worker.js', import.meta.url), execArgv: [] };
  const hooks = new URL('./typescript-hooks.mjs', import.meta.url).href;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(hooks)});`;
  return {
    url: new URL('./extraction-worker.ts', import.meta.url),
    execArgv: ['--import', `data:text/javascript,${encodeURIComponent(register)}`],
  };
}

/**
 * `extractText` in a worker thread, so a hostile file cannot take this process down or stall
 * it: the worker's heap is capped (`too_much_memory` when it runs out) and it is terminated after
 * `timeoutMs` (`timeout`) or when `signal` aborts. Fails with an ExtractionError otherwise too.
 */
export function runExtraction(
  bytes: Uint8Array,
  kind: FileKind,
  limits: ExtractionLimits,
  { signal, onProgress }: RunExtractionOptions = {},
): Promise<ExtractedText> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const { url, execArgv } = workerEntry();
  return new Promise((resolve, reject) => {
    const worker = new Worker(url, {
      workerData: { bytes, kind, limits } satisfies ExtractionJob,
      execArgv,
      resourceLimits: { maxOldGenerationSizeMb: limits.maxOldGenerationSizeMb },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(
      () => settle(() => reject(new ExtractionError('timeout', `Extraction took longer than ${limits.timeoutMs} ms.`))),
      limits.timeoutMs,
    );
    const onAbort = () => settle(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });

    worker.on('message', (message: ExtractionMessage) => {
      if (message.type === 'done') settle(() => resolve(message.result));
      else if (message.type === 'failed') settle(() => reject(new ExtractionError(message.reason, message.message)));
      else if (!settled) {
        try {
          onProgress?.(message.progress);
        } catch (error) {
          settle(() => reject(error)); // a throwing listener must not become an uncaught exception here
        }
      }
    });
    worker.on('error', (error) => settle(() => reject(asOutOfMemory(error, limits) ?? error)));
    worker.on('exit', (code) =>
      settle(() => reject(new Error(`The extraction worker exited (code ${code}) without an answer.`))),
    );
  });
}

/** A worker whose heap reached maxOldGenerationSizeMb dies with ERR_WORKER_OUT_OF_MEMORY; this process lives on. */
function asOutOfMemory(error: Error & { code?: string }, limits: ExtractionLimits): ExtractionError | undefined {
  if (error.code !== 'ERR_WORKER_OUT_OF_MEMORY') return undefined;
  const message = `Extraction needed more than ${limits.maxOldGenerationSizeMb} MB.`;
  return new ExtractionError('too_much_memory', message, { cause: error });
}
