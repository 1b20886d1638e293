import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

/** An OpenAI-compatible endpoint that answers 500 while `failing.on` (a provider that fails on demand). */
export async function flakyOpenAiServer(): Promise<{
  url: string;
  failing: { on: boolean };
  /** While on, the model answers nothing for 7 s (longer than SEARCH_MODEL_TIMEOUT_MS), then fails. */
  hanging: { on: boolean };
  calls: () => number;
  close: () => Promise<void>;
}> {
  const failing = { on: true };
  const hanging = { on: false };
  let calls = 0;
  const server: Server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    calls++;
    res.setHeader('content-type', 'application/json');
    if (hanging.on) await new Promise((r) => setTimeout(r, 7_000));
    if (failing.on || hanging.on) {
      res.statusCode = 500;
      res.end('{"error":{"message":"unavailable"}}');
      return;
    }
    const body = JSON.parse(raw);
    if (req.url?.endsWith('/embeddings')) {
      res.end(JSON.stringify({ data: (body.input as string[]).map((_, index) => ({ index, embedding: [1, 2, 3] })) }));
    } else {
      res.end(
        JSON.stringify({
          choices: [
            {
              message: {
                role: 'assistant',
                content: body.messages[0].content.includes('JSON') ? '["remote"]' : 'Remote summary.',
              },
            },
          ],
        }),
      );
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    failing,
    hanging,
    calls: () => calls,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Polls GET /api/memory-fragments/{id} until the fragment is published; returns it. */
export async function untilPublished(
  get: () => Promise<{ status: number; body: any }>,
  timeout = 30_000,
): Promise<any> {
  let fragment: any;
  await expect
    .poll(
      async () => {
        const res = await get();
        fragment = res.body.fragment;
        return fragment?.status;
      },
      { timeout, interval: 100 },
    )
    .toBe('published');
  return fragment;
}
