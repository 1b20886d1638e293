import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AiProviderError, OpenAiCompatibleProvider, parseTags } from './openai-provider.js';

interface Seen {
  path: string;
  authorization?: string;
  body: any;
}

/** A local server speaking the OpenAI wire format (chat completions, embeddings). */
interface Failing {
  on: boolean;
  /** Answer this status and raw body instead of the default 500. */
  status?: number;
  body?: string;
}

function openAiServer(seen: Seen[], failing: Failing): Server {
  return createServer(async (req: IncomingMessage, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    seen.push({ path: req.url!, authorization: req.headers.authorization, body });
    res.setHeader('content-type', 'application/json');
    if (failing.on) {
      res.statusCode = failing.status ?? 500;
      res.end(failing.body ?? JSON.stringify({ error: { message: 'boom', type: 'server_error' } }));
      return;
    }
    if (req.url === '/v1/chat/completions') {
      const system: string = body.messages[0].content;
      const content = system.includes('JSON array')
        ? 'Here you go: ["Databases", "postgres", "databases"]'
        : '  A short summary.  ';
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
        }),
      );
      return;
    }
    if (req.url === '/v1/embeddings') {
      // Out of order on purpose: the adapter must sort by index.
      const data = (body.input as string[])
        .map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 0, 0] }))
        .reverse();
      res.end(
        JSON.stringify({ object: 'list', model: body.model, data, usage: { prompt_tokens: 1, total_tokens: 1 } }),
      );
      return;
    }
    res.statusCode = 404;
    res.end('{}');
  });
}

describe('OpenAI-compatible provider', () => {
  const seen: Seen[] = [];
  const failing: Failing = { on: false };
  let server: Server;
  let provider: OpenAiCompatibleProvider;

  beforeAll(async () => {
    server = openAiServer(seen, failing);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    provider = new OpenAiCompatibleProvider({
      baseUrl: `http://127.0.0.1:${port}/v1/`,
      apiKey: 'sk-test',
      chatModel: 'chat-m',
      embeddingModel: 'embed-m',
    });
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('summarises with a chat completion, sending the model, the key and the text', async () => {
    expect(await provider.summarize('Some long note')).toBe('A short summary.');
    const call = seen.at(-1)!;
    expect(call.path).toBe('/v1/chat/completions');
    expect(call.authorization).toBe('Bearer sk-test');
    expect(call.body.model).toBe('chat-m');
    expect(call.body.messages[1]).toEqual({ role: 'user', content: 'Some long note' });
  });

  it('reads tags from a JSON array in the answer, lower-cased and deduplicated', async () => {
    expect(await provider.generateTags('text', 5)).toEqual(['databases', 'postgres']);
    expect(parseTags('alpha, Beta\n- gamma')).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('embeds through /embeddings in input order, normalised', async () => {
    const vectors = await provider.embed(['ab', 'abcd']);
    expect(seen.at(-1)!.body).toEqual({ model: 'embed-m', input: ['ab', 'abcd'] });
    expect(vectors).toEqual([
      [1, 0, 0],
      [1, 0, 0],
    ]);
    expect(await provider.embed([])).toEqual([]);
  });

  it("puts the model's marker before texts embedded for a purpose, and none before others", async () => {
    const { port } = server.address() as AddressInfo;
    const marked = new OpenAiCompatibleProvider({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      chatModel: 'chat-m',
      embeddingModel: 'nomic-embed-text',
      embeddingPrompts: { query: 'search_query: ', document: 'search_document: ' },
    });
    await marked.embed(['boiling kettles'], 'query');
    expect(seen.at(-1)!.body.input).toEqual(['search_query: boiling kettles']);
    await marked.embed(['A kettle boils.', 'A teapot steeps.'], 'document');
    expect(seen.at(-1)!.body.input).toEqual(['search_document: A kettle boils.', 'search_document: A teapot steeps.']);
    await marked.embed(['as given']);
    expect(seen.at(-1)!.body.input).toEqual(['as given']);
    // A provider without markers sends every text as given.
    await provider.embed(['q'], 'query');
    expect(seen.at(-1)!.body.input).toEqual(['q']);
  });

  it('fails with the HTTP status when the endpoint answers an error', async () => {
    failing.on = true;
    try {
      await expect(provider.summarize('x')).rejects.toMatchObject({ name: 'AiProviderError', status: 500 });
      await expect(provider.embed(['x'])).rejects.toBeInstanceOf(AiProviderError);
    } finally {
      failing.on = false;
    }
  });

  it("never puts the provider's error body in the error's message; the log's copy has the key scrubbed", async () => {
    const cases: Array<{ status: number; body: string; secret: string }> = [
      // OpenAI echoes the key it was sent.
      {
        status: 401,
        body: JSON.stringify({
          error: { message: 'Incorrect API key provided: sk-test', type: 'invalid_request_error' },
        }),
        secret: 'Incorrect API key',
      },
      {
        status: 500,
        body: JSON.stringify({ error: { message: 'PROVIDER_LEAK internal stack at /srv/secret.py' } }),
        secret: 'PROVIDER_LEAK',
      },
      {
        status: 400,
        body: JSON.stringify({ error: { message: 'PROVIDER_LEAK bad request' } }),
        secret: 'PROVIDER_LEAK',
      },
      // A 200 whose body is not JSON: a parser's message would quote it.
      { status: 200, body: '{"PROVIDER_LEAK sk-test', secret: 'PROVIDER_LEAK' },
    ];
    try {
      for (const c of cases) {
        Object.assign(failing, { on: true, status: c.status, body: c.body });
        for (const call of [
          () => provider.summarize('x'),
          () => provider.generateTags('x', 3),
          () => provider.embed(['x']),
        ]) {
          const err = (await call().then(
            () => undefined,
            (e: unknown) => e,
          )) as AiProviderError;
          expect(err).toBeInstanceOf(AiProviderError);
          expect(err.message).toMatch(
            c.status === 200 ? /: the answer is not valid JSON$/ : new RegExp(`: HTTP ${c.status}$`),
          );
          expect(err.message).not.toContain(c.secret);
          expect(err.message).not.toContain('sk-test');
          expect(err.providerSaid).toContain(c.secret);
          expect(err.providerSaid).not.toContain('sk-test');
        }
      }
      expect(failing.on).toBe(true);
    } finally {
      Object.assign(failing, { on: false, status: undefined, body: undefined });
    }
  });

  it('names a connection failure by its code', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const down = new OpenAiCompatibleProvider({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      chatModel: 'c',
      embeddingModel: 'e',
    });
    await expect(down.summarize('x')).rejects.toThrow(/^\/chat\/completions: connection error \(ECONNREFUSED\)$/);
  });

  it('tells the tokens each answer reports', async () => {
    const told: unknown[] = [];
    const onUsage = (u: unknown) => told.push(u);
    await provider.summarize('x', { onUsage });
    await provider.generateTags('x', 3, { onUsage });
    await provider.embed(['a', 'b'], undefined, { onUsage });
    expect(told).toEqual([
      { inputTokens: 7, outputTokens: 3 },
      { inputTokens: 7, outputTokens: 3 },
      { inputTokens: 1, outputTokens: 0 },
    ]);
  });
});
