import type { Readable } from 'node:stream';
import { chunkText, type AiProvider } from '@kw/platform-ai';
import type { BlobStorage } from '@kw/platform-storage';
import type { FileKind } from '../domain/file-kind.js';
import type { ChunkToStore } from '../persistence/processing.repository.js';
import { runExtraction } from './extraction/run-extraction.js';
import type { ExtractionLimits } from './extraction/extraction-limits.js';

/** Kinds whose text is extracted; images and other files keep their metadata only. */
const EXTRACTED: ReadonlySet<string> = new Set(['pdf', 'docx', 'html', 'markdown', 'text', 'csv', 'json']);
const EMBED_BATCH = 32;

export interface ProcessedFile {
  chunks: ChunkToStore[];
  textTruncated: boolean;
}

export interface ProcessFileOptions {
  signal: AbortSignal;
  onProgress(pagesDone: number, pagesTotal: number): void;
}

async function readAll(stream: Readable, signal: AbortSignal): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) {
    if (signal.aborted) {
      stream.destroy();
      break;
    }
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts);
}

/**
 * One file's processing: its text (in a worker thread, bounded in pages, memory and time), cut
 * by the same chunker as fragment content and embedded by the same AI provider. Throws
 * ExtractionError for a file that cannot be read; stops early when the signal aborts.
 */
export async function processFile(
  file: { storageKey: string; kind: string },
  storage: BlobStorage,
  ai: AiProvider,
  limits: ExtractionLimits,
  options: ProcessFileOptions,
): Promise<ProcessedFile> {
  if (!EXTRACTED.has(file.kind)) return { chunks: [], textTruncated: false };
  const bytes = await readAll(await storage.get(file.storageKey), options.signal);
  const extracted = await runExtraction(
    new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
    file.kind as FileKind,
    limits,
    {
      signal: options.signal,
      onProgress: (p) => options.onProgress(p.pagesDone, p.pagesTotal ?? 0),
    },
  );
  const texts = chunkText(extracted.text);
  const chunks: ChunkToStore[] = [];
  for (let i = 0; i < texts.length && !options.signal.aborted; i += EMBED_BATCH) {
    const batch = texts.slice(i, i + EMBED_BATCH);
    const vectors = await ai.embed(batch, 'document');
    batch.forEach((text, j) => chunks.push({ text, embedding: vectors[j] ?? [] }));
  }
  return { chunks, textTruncated: extracted.truncated };
}
