import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAND_IN_ERROR_MESSAGES, STAND_IN_STREAM_ERROR } from '../../support/stand-ins/openai-stand-in.js';
import { OPERATOR_OPENAI_KEY, call, startChatPlatform } from './chat-fixture.js';

const until = async (check: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};

/**
 * Upstream failures (500, a hang, a malformed or cut stream) answer 502 in the OpenAI shape, a
 * client that goes away cancels the upstream request, and a user's own provider key (vault
 * secret of type api-key) is used for that user's calls without ever showing up in an answer or
 * a log line.
 */
describe('chat upstream failures and bring-your-own-key', () => {
  let p: Awaited<ReturnType<typeof startChatPlatform>>;
  let client: OpenAI;
  let token: string;
  const messages = [{ role: 'user' as const, content: 'hello' }];

  beforeAll(async () => {
    p = await startChatPlatform();
    ({ token } = await p.person());
    client = p.sdk(token);
  }, 120_000);

  afterAll(async () => {
    await p?.stop();
  });

  /** A new person (its token) and a public embed key (any site) over its workspace, on the flaky provider's model. */
  const flakyEmbedKey = async (workspaceName: string, configName: string) => {
    const owner = await p.person();
    const ws = (await call(p.base, owner.token, 'POST', '/api/workspaces', { name: workspaceName })).body.workspace.id;
    const config = await call(p.base, owner.token, 'POST', '/api/v2/configs', {
      workspaceId: ws,
      name: configName,
      model: 'flaky/gpt-4o',
    });
    expect(config.status, config.text).toBe(201);
    const key = await call(p.base, owner.token, 'POST', `/api/v2/configs/${config.body.config.id}/keys`, {
      label: 'any site',
      public: true,
      scopedToken: owner.token,
    });
    expect(key.status, key.text).toBe(201);
    return { ownerToken: owner.token as string, embedKey: key.body.token as string };
  };

  describe('failures', () => {
    it.each(['status-500', 'status-429', 'status-401'] as const)(
      'an upstream %s answers 502 in the OpenAI shape, without the upstream body',
      async (mode) => {
        p.flaky.setMode(mode);
        const res = await call(p.base, token, 'POST', '/api/v1/chat/completions', { model: 'flaky/gpt-4o', messages });
        p.flaky.setMode('ok');
        expect(res.status).toBe(502);
        expect(res.body.error).toMatchObject({ type: 'server_error', code: 'upstream_error', param: '' });
        const status = Number(mode.slice('status-'.length));
        expect(res.body.error.message).toBe(`The model provider "flaky" failed: HTTP ${status}`);
        expect(res.text).not.toMatch(/at .*\.(js|ts):\d+/);
        // What the provider said is in the server's log (read from its stdout, which may lag the
        // answer), not in the answer.
        expect(res.text).not.toContain(STAND_IN_ERROR_MESSAGES[status]);
        await expect
          .poll(() => p.platform.logs)
          .toContainEqual(
            expect.objectContaining({ msg: 'Model provider failed', providerSaid: STAND_IN_ERROR_MESSAGES[status] }),
          );
      },
    );

    it('an upstream 400 is the client’s problem: 400 upstream_rejected', async () => {
      p.flaky.setMode('status-400');
      const err = await client.chat.completions.create({ model: 'flaky/gpt-4o', messages }).catch((e: unknown) => e);
      p.flaky.setMode('ok');
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err).toMatchObject({ code: 'upstream_rejected' });
    });

    it('a hanging provider answers 502 after its timeout, and the SDK raises it', async () => {
      p.flaky.setMode('hang');
      const started = Date.now();
      const err = await client.chat.completions.create({ model: 'flaky/gpt-4o', messages }).catch((e: unknown) => e);
      p.flaky.setMode('ok');
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    });

    it.each(['malformed-stream', 'close-mid-stream', 'error-event'] as const)(
      'a %s ends the stream with an error the SDK raises',
      async (mode) => {
        p.flaky.setMode(mode);
        const stream = await client.chat.completions.create({ model: 'flaky/gpt-4o', messages, stream: true });
        const err = await (async () => {
          for await (const _chunk of stream) void _chunk;
        })().catch((e: unknown) => e);
        p.flaky.setMode('ok');
        expect(err).toBeInstanceOf(OpenAI.APIError);
        expect((err as Error).message).not.toContain(STAND_IN_STREAM_ERROR);
        // The stand-in's error event echoes the key it received: the log has it scrubbed.
        if (mode === 'error-event')
          await expect
            .poll(() => p.platform.logs)
            .toContainEqual(
              expect.objectContaining({
                msg: 'Model provider failed',
                provider: 'flaky',
                providerSaid: `${STAND_IN_STREAM_ERROR}; key Bearer ***`,
              }),
            );
      },
    );

    it("ends an embed turn whose provider fails with an error event that keeps the provider's words out", async () => {
      const { embedKey } = await flakyEmbedKey('embed', 'flaky assistant');
      p.flaky.setMode('status-500');
      const res = await fetch(`${p.base}/api/v2/embed/chat?key=${embedKey}`, {
        method: 'POST',
        headers: { origin: 'https://shop.example', 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }),
      });
      const text = await res.text();
      p.flaky.setMode('ok');
      expect(res.status, text).toBe(200);
      expect(text).toContain('event: error');
      expect(text).toContain('The model provider \\"flaky\\" failed: HTTP 500');
      expect(text).not.toContain(STAND_IN_ERROR_MESSAGES[500]);
    });

    it('a client that disconnects mid-stream cancels the upstream request', async () => {
      p.flaky.setMode('stall-mid-stream');
      const abortedBefore = p.flaky.aborted();
      const controller = new AbortController();
      const res = await fetch(`${p.base}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'flaky/gpt-4o', messages, stream: true }),
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read(); // the first chunk arrived: the upstream request is open
      controller.abort();
      await until(() => p.flaky.aborted() > abortedBefore);
      p.flaky.setMode('ok');
    });

    it('a client that gives up on a non-streamed call cancels it too', async () => {
      p.flaky.setMode('hang');
      const abortedBefore = p.flaky.aborted();
      const requestsBefore = p.flaky.requests.length;
      const controller = new AbortController();
      const pending = fetch(`${p.base}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'flaky/gpt-4o', messages }),
        signal: controller.signal,
      }).catch(() => undefined);
      await until(() => p.flaky.requests.length > requestsBefore);
      controller.abort();
      await pending;
      await until(() => p.flaky.aborted() > abortedBefore);
      p.flaky.setMode('ok');
    });
  });

  describe('a provider that never reports usage', () => {
    // 800 bytes of prompt (200 tokens estimated); the stand-in answers "echo: " and the 800 bytes
    // in two chunks: 806 bytes relayed, 202 tokens estimated.
    const prompt = 'x'.repeat(800);
    const estimate = { prompt_tokens: 200, completion_tokens: 202, total_tokens: 402 };
    const usageOf = async (token: string) =>
      (await call(p.base, token, 'GET', '/api/ai/usage?groupBy=credential')).body.totals;

    it('answers and records a stream with the estimate, not 0', async () => {
      const me = await p.person();
      p.flaky.setMode('no-usage', { times: 1 });
      const stream = await p.sdk(me.token).chat.completions.create({
        model: 'flaky/gpt-4o',
        messages: [{ role: 'user', content: prompt }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(p.flaky.requests.at(-1)!.body.stream).toBe(true);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(`echo: ${prompt}`);
      expect(chunks.filter((c) => c.usage)).toHaveLength(1);
      expect(chunks.at(-1)!.usage).toEqual(estimate);
      await expect
        .poll(() => usageOf(me.token))
        .toMatchObject({ requests: 1, inputTokens: estimate.prompt_tokens, outputTokens: estimate.completion_tokens });
    });

    it('answers and records a non-streamed completion with the estimate, not 0', async () => {
      const me = await p.person();
      p.flaky.setMode('no-usage', { times: 1 });
      const completion = await p.sdk(me.token).chat.completions.create({
        model: 'flaky/gpt-4o',
        messages: [{ role: 'user', content: prompt }],
      });
      expect(completion.choices[0]!.message.content).toBe(`echo: ${prompt}`);
      expect(completion.usage).toEqual(estimate);
      await expect
        .poll(() => usageOf(me.token))
        .toMatchObject({ requests: 1, inputTokens: estimate.prompt_tokens, outputTokens: estimate.completion_tokens });
    });

    it("counts an embed turn's calls with the estimate, in its done event and the visitor's usage", async () => {
      const { ownerToken, embedKey } = await flakyEmbedKey('no usage', 'quiet assistant');
      p.flaky.setMode('no-usage');
      const res = await fetch(`${p.base}/api/v2/embed/chat?key=${embedKey}`, {
        method: 'POST',
        headers: { origin: 'https://shop.example', 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: prompt }] }),
      });
      const text = await res.text();
      p.flaky.setMode('ok');
      expect(res.status, text).toBe(200);
      const done = /event: done\ndata: (.*)\n/.exec(text);
      expect(done, text).not.toBeNull();
      const usage = JSON.parse(done![1]!).usage;
      expect(usage.modelCalls).toBeGreaterThanOrEqual(1);
      // Each call's prompt holds the visitor's 800 bytes; each answer carries at least a token.
      expect(usage.inputTokens).toBeGreaterThanOrEqual(200 * usage.modelCalls);
      expect(usage.outputTokens).toBeGreaterThanOrEqual(usage.modelCalls);
      await expect
        .poll(() => usageOf(ownerToken))
        .toMatchObject({
          requests: usage.modelCalls,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
        });
    });
  });

  describe('bring your own key', () => {
    const USER_KEY = `sk-user-own-${Math.random().toString(36).slice(2)}-secretpart`;
    let owner: { token: string; user: { id: string } };
    let other: { token: string };
    let secretId: string;

    beforeAll(async () => {
      owner = await p.person();
      other = await p.person();
      const created = await call(p.base, owner.token, 'POST', '/api/v1/vault/secrets', {
        name: 'my openai key',
        type: 'api-key',
        provider: 'standin',
        value: USER_KEY,
        description: 'personal',
      });
      expect(created.status).toBe(201);
      expect(created.text).not.toContain(USER_KEY);
      secretId = created.body.secret.id;
    });

    it("uses the user's key for the user's calls and the operator's for others", async () => {
      const before = p.openai.requests.length;
      const mine = await p.sdk(owner.token).chat.completions.create({ model: 'gpt-4o', messages });
      expect(JSON.stringify(mine)).not.toContain(USER_KEY);
      const theirs = await p.sdk(other.token).chat.completions.create({ model: 'gpt-4o', messages });
      expect(theirs.choices[0]!.message.content).toBe('echo: hello');
      const posts = p.openai.requests.slice(before).filter((r) => r.method === 'POST');
      expect(posts.map((r) => r.headers.authorization)).toEqual([
        `Bearer ${USER_KEY}`,
        `Bearer ${OPERATOR_OPENAI_KEY}`,
      ]);
    });

    it('streams with the user’s key too', async () => {
      const before = p.openai.requests.length;
      const stream = await p.sdk(owner.token).chat.completions.create({ model: 'gpt-4o', messages, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('echo: hello');
      expect(p.openai.requests.slice(before).find((r) => r.method === 'POST')!.headers.authorization).toBe(
        `Bearer ${USER_KEY}`,
      );
    });

    it('records each read of the value in the owner’s audit log, and only theirs', async () => {
      const log = await call(p.base, owner.token, 'GET', `/api/v1/vault/accesses?secretId=${secretId}`);
      expect(log.status).toBe(200);
      expect(log.body.accesses.length).toBeGreaterThanOrEqual(2);
      expect(log.body.accesses[0]).toMatchObject({ secretId, secretName: 'my openai key', purpose: 'model-call' });
      expect(log.body.accesses[0].detail).toContain('gpt-4o');
      const theirs = await call(p.base, other.token, 'GET', '/api/v1/vault/accesses');
      expect(theirs.body.accesses).toEqual([]);
    });

    it('no answer and no log line ever holds the key', async () => {
      const list = await call(p.base, owner.token, 'GET', '/api/v1/vault/secrets');
      const one = await call(p.base, owner.token, 'GET', `/api/v1/vault/secrets/${secretId}`);
      for (const res of [list, one]) {
        expect(res.status).toBe(200);
        expect(res.text).not.toContain(USER_KEY);
        expect(res.text).not.toContain('value');
      }
      // A failing call with the key (the provider refuses it) must not log it either.
      p.openai.setMode('status-401', { times: 1 });
      await call(p.base, owner.token, 'POST', '/api/v1/chat/completions', { model: 'gpt-4o', messages });
      // Nor a provider's error event mid-stream that echoes the key (as OpenRouter's can).
      p.openai.setMode('error-event', { times: 1 });
      const stream = await p.sdk(owner.token).chat.completions.create({ model: 'gpt-4o', messages, stream: true });
      const streamErr = await (async () => {
        for await (const _chunk of stream) void _chunk;
      })().catch((e: unknown) => e);
      expect(streamErr).toBeInstanceOf(OpenAI.APIError);
      expect(p.openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${USER_KEY}`);
      await expect
        .poll(() => p.platform.logs)
        .toContainEqual(
          expect.objectContaining({
            msg: 'Model provider failed',
            provider: 'standin',
            providerSaid: `${STAND_IN_STREAM_ERROR}; key Bearer ***`,
          }),
        );
      const logs = JSON.stringify(p.platform.logs) + p.platform.stderr.join('');
      expect(logs).toContain('UPSTREAM_ERROR'); // the failed call was logged
      // Abandoned calls (the disconnect tests above) are expected outcomes, not failures.
      expect(p.platform.logs.filter((l) => l.msg === 'unexpected failure')).toEqual([]);
      expect(logs).not.toContain(USER_KEY);
      expect(logs).not.toContain('secretpart');
      expect(logs).not.toContain(OPERATOR_OPENAI_KEY);
    });

    it("after the secret is deleted, the operator's key is used again", async () => {
      const deleted = await call(p.base, owner.token, 'DELETE', `/api/v1/vault/secrets/${secretId}`);
      expect(deleted.status).toBe(204);
      const before = p.openai.requests.length;
      await p.sdk(owner.token).chat.completions.create({ model: 'gpt-4o', messages });
      expect(p.openai.requests.slice(before).find((r) => r.method === 'POST')!.headers.authorization).toBe(
        `Bearer ${OPERATOR_OPENAI_KEY}`,
      );
    });
  });
});
