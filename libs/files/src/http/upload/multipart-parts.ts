import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { type AppError, badRequest, invalidField } from '@kw/platform-errors';

export type MultipartPart =
  | { type: 'field'; name: string; value: string }
  | { type: 'file'; name: string; fileName: string; mimeType: string; stream: Readable };

/** The 400 of a body that is not well-formed multipart (a part or the whole cut off, a bad header). */
export function malformedMultipart(err: Error): AppError {
  return badRequest(`The multipart body is malformed: ${err.message}`);
}

export interface MultipartLimits {
  files: number;
  fields: number;
  fieldBytes: number;
}

/**
 * The parts of a multipart/form-data request in order, as they arrive: nothing is buffered
 * beyond what busboy holds for one header. Each file part must be consumed (or resumed) before
 * the next part is read, which is what gives the upload its backpressure: the client sends only
 * as fast as storage takes the bytes.
 */
export async function* multipartParts(
  request: IncomingMessage,
  limits: MultipartLimits,
): AsyncGenerator<MultipartPart> {
  const contentType = request.headers['content-type'] ?? '';
  let parser;
  try {
    parser = new Busboy({
      headers: { ...request.headers, 'content-type': contentType },
      limits: {
        files: limits.files,
        fields: limits.fields,
        fieldSize: limits.fieldBytes,
        parts: limits.files + limits.fields,
      },
    });
  } catch {
    throw badRequest('The multipart body has no boundary', { field: 'content-type' });
  }
  const queue: MultipartPart[] = [];
  let done = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
    if (valueTruncated) failure ??= invalidField(name, `must be at most ${limits.fieldBytes} bytes`);
    queue.push({ type: 'field', name, value });
    signal();
  });
  let lastFile: Readable | undefined;
  parser.on('file', (name, stream, fileName, _encoding, mimeType) => {
    lastFile = stream;
    // A part cut off by the body's end ("Part terminated early") fails its own stream, not the
    // parser: without a listener here that error, at any moment of the upload (before storage
    // reads the part, or after its consumer gave up), would be unhandled and end the process.
    stream.on('error', (err: Error) => {
      failure ??= malformedMultipart(err);
      done = true;
      signal();
    });
    queue.push({ type: 'file', name, fileName, mimeType, stream });
    signal();
  });
  parser.on('filesLimit', () => {
    failure ??= badRequest(`At most ${limits.files} files per upload`, { field: 'file' });
  });
  parser.on('fieldsLimit', () => {
    failure ??= badRequest(`At most ${limits.fields} fields per upload`);
  });
  parser.on('finish', () => {
    done = true;
    signal();
  });
  parser.on('error', (err) => {
    failure ??= malformedMultipart(err as Error);
    done = true;
    signal();
  });
  request.on('aborted', () => {
    failure ??= badRequest('The client closed the upload before it ended');
    done = true;
    // The rest of the file part will never come: end it short, so that its reader (a stream to
    // storage) stops waiting and stores nothing. Without an error: it may have no reader yet.
    if (lastFile && !lastFile.readableEnded) lastFile.destroy();
    signal();
  });
  request.pipe(parser);
  try {
    for (;;) {
      if (failure) throw failure;
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (done) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    // Whatever is left (after a refusal) is read and dropped, so the answer reaches the client.
    request.unpipe(parser);
    for (const part of queue) if (part.type === 'file') part.stream.resume();
    request.resume();
  }
}
