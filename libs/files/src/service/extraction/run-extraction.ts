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
 * Workers kept for the next file after a clean answer: starting one (a new isolate that loads
 * the PDF and DOCX readers) costs several times the extraction of a typical file. At most this
 * many wait, each for at most IDLE_WORKER_MS; they never keep the process alive.
 */
const MAX_IDLE_WORKERS = 4;
const IDLE_WORKER_MS = 30_000;
/** A worker is retired after this many files, or when its heap after one passes half its cap. */
const MAX_FILES_PER_WORKER = 100;

interface PooledWorker {
  worker: Worker;
  /** The heap cap it was started with: a job may only run in a worker of its own cap. */
  heapMb: number;
  files: number;
  idleTimer?: NodeJS.Timeout;
}

const idle: PooledWorker[] = [];

/** How many extraction workers wait for a file (for tests and diagnostics). */
export function idleExtractionWorkers(): number {
  return idle.length;
}

function takeWorker(limits: ExtractionLimits): PooledWorker {
  const at = idle.findIndex((w) => w.heapMb === limits.maxOldGenerationSizeMb);
  if (at >= 0) {
    const [pooled] = idle.splice(at, 1);
    clearTimeout(pooled.idleTimer);
    pooled.worker.removeAllListeners('exit').removeAllListeners('error');
    pooled.worker.ref();
    return pooled;
  }
  const { url, execArgv } = workerEntry();
  const worker = new Worker(url, {
    execArgv,
    resourceLimits: { maxOldGenerationSizeMb: limits.maxOldGenerationSizeMb },
  });
  return { worker, heapMb: limits.maxOldGenerationSizeMb, files: 0 };
}

/** After a clean answer: kept for the next file, unless the pool is full or the worker is worn. */
function giveBack(pooled: PooledWorker, heapBytes: number): void {
  const worn = pooled.files >= MAX_FILES_PER_WORKER || heapBytes > (pooled.heapMb * 1024 * 1024) / 2;
  if (worn || idle.length >= MAX_IDLE_WORKERS) {
    retire(pooled.worker);
    return;
  }
  const drop = () => {
    const at = idle.indexOf(pooled);
    if (at >= 0) idle.splice(at, 1);
  };
  pooled.worker.unref();
  // It may still fail while idle (an error its last file left behind): dropped, never thrown here.
  pooled.worker.on('error', drop).once('exit', drop);
  pooled.idleTimer = setTimeout(() => {
    drop();
    void pooled.worker.terminate();
  }, IDLE_WORKER_MS).unref();
  idle.push(pooled);
}

/** Ends a worker whose job is over: a late error of it must not go unhandled in this process. */
function retire(worker: Worker): void {
  worker.on('error', () => {});
  void worker.terminate();
}

/**
 * `extractText` in a worker thread, so a hostile file cannot take this process down or stall
 * it: the worker's heap is capped (`too_much_memory` when it runs out) and it is terminated after
 * `timeoutMs` (`timeout`) or when `signal` aborts. Fails with an ExtractionError otherwise too.
 * A worker that answered cleanly takes the next file (see MAX_IDLE_WORKERS); one that failed in
 * any way is terminated, so what a hostile file did to it never meets another file.
 */
export function runExtraction(
  bytes: Uint8Array,
  kind: FileKind,
  limits: ExtractionLimits,
  { signal, onProgress }: RunExtractionOptions = {},
): Promise<ExtractedText> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const pooled = takeWorker(limits);
  const { worker } = pooled;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void, keep?: { heapBytes: number }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (keep) giveBack(pooled, keep.heapBytes);
      else retire(worker);
      outcome();
    };
    const timer = setTimeout(
      () => settle(() => reject(new ExtractionError('timeout', `Extraction took longer than ${limits.timeoutMs} ms.`))),
      limits.timeoutMs,
    );
    const onAbort = () => settle(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });

    const onMessage = (message: ExtractionMessage) => {
      if (message.type === 'done') settle(() => resolve(message.result), { heapBytes: message.heapBytes });
      else if (message.type === 'failed') settle(() => reject(new ExtractionError(message.reason, message.message)));
      else if (!settled) {
        try {
          onProgress?.(message.progress);
        } catch (error) {
          settle(() => reject(error)); // a throwing listener must not become an uncaught exception here
        }
      }
    };
    const onError = (error: Error) => settle(() => reject(asOutOfMemory(error, limits) ?? error));
    const onExit = (code: number) =>
      settle(() => reject(new Error(`The extraction worker exited (code ${code}) without an answer.`)));
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    pooled.files++;
    worker.postMessage({ bytes, kind, limits } satisfies ExtractionJob);
  });
}

/** A worker whose heap reached maxOldGenerationSizeMb dies with ERR_WORKER_OUT_OF_MEMORY; this process lives on. */
function asOutOfMemory(error: Error & { code?: string }, limits: ExtractionLimits): ExtractionError | undefined {
  if (error.code !== 'ERR_WORKER_OUT_OF_MEMORY') return undefined;
  const message = `Extraction needed more than ${limits.maxOldGenerationSizeMb} MB.`;
  return new ExtractionError('too_much_memory', message, { cause: error });
}
