import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Raw socket answers: the server closed the connection (false: the client gave up waiting). */
  closed?: boolean;
}

/**
 * Sends bytes as written over a plain socket and reads the whole answer (the server closes
 * the connection: `Connection: close` is sent). For requests fetch refuses to make: a bare LF
 * or NUL in a header, an invalid request line.
 */
export function rawRequest(base: string, bytes: string | Buffer, timeoutMs = 5_000): Promise<RawAnswer> {
  return rawExchange(base, (socket) => socket.write(bytes), timeoutMs);
}

/**
 * Sends a request in pieces, `gapMs` apart, as a slow client does, and reads the whole answer
 * once the server closes the connection (it may answer before the last piece: the rest is then
 * not sent). A piece after the answer would only meet a closed socket.
 */
export function rawRequestInPieces(
  base: string,
  pieces: Array<string | Buffer>,
  gapMs: number,
  timeoutMs = 30_000,
): Promise<RawAnswer> {
  return rawExchange(
    base,
    (socket) => {
      let next = 0;
      const send = () => {
        if (socket.destroyed || socket.writableEnded || next >= pieces.length) return;
        socket.write(pieces[next++]);
        if (next < pieces.length) setTimeout(send, gapMs);
      };
      send();
    },
    timeoutMs,
  );
}

function rawExchange(base: string, write: (socket: Socket) => void, timeoutMs: number): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy(new Error('raw request timed out'));
    }, timeoutMs);
    let failure: Error | undefined;
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may answer and close while a large request is still being written (EPIPE):
    // what it answered is still the answer.
    socket.on('error', (err) => (failure = err));
    socket.on('close', () => {
      clearTimeout(timer);
      if (chunks.length === 0) return reject(failure ?? new Error('connection closed without an answer'));
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = raw.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        text: rest.join('\r\n\r\n'),
        closed: !timedOut,
      });
    });
    write(socket);
  });
}

/**
 * One request with node:http, which (unlike fetch) sends a header given as an array once per
 * value and can bind a local address (127.0.0.x), so a test can speak from several addresses.
 */
export function nodeRequest(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: string; localAddress?: string } = {},
): Promise<RawAnswer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
