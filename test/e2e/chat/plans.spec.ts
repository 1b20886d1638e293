import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { startExaStandIn, type ExaStandIn } from '../../support/stand-ins/exa-stand-in.js';
import { startOpenAiStandIn, type StandIn } from '../../support/stand-ins/openai-stand-in.js';
import { call } from './chat-fixture.js';

const PLANS = {
  default: 'free',
  plans: [
    {
      id: 'free',
      name: 'Free',
      limits: { monthlyTokens: 10 },
      entitlements: { webSearch: false, models: ['gpt-4o-mini'] },
    },
    { id: 'pro', name: 'Pro', entitlements: { webSearch: true } },
    { id: 'tiny', name: 'Tiny', limits: { monthlyTokens: 50 } },
    { id: 'pics', name: 'Pics', limits: { monthlyImages: 2 } },
  ],
};

/**
 * Plans and entitlements with a plan table of small limits: a model outside the plan is 403, a
 * spent monthly token budget stops chat with the reset time, web search needs the plan's
 * entitlement (or an administrator's grant), and the subscription shows the usage that counts.
 */
describe('plans and entitlements', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-plans-');
  let platform: PlatformProcess;
  let openai: StandIn;
  /** A model that streams slowly enough for a client to leave in the middle. */
  let slow: StandIn;
  let exa: ExaStandIn;

  const chat = (token: string, model: string) =>
    call(platform.url, token, 'POST', '/api/v1/chat/completions', {
      model,
      messages: [{ role: 'user', content: 'how many tokens is this' }],
    });
  const search = (token: string) => call(platform.url, token, 'POST', '/api/v1/web/search', { query: 'kettles' });

  beforeAll(async () => {
    openai = await startOpenAiStandIn();
    slow = await startOpenAiStandIn({ eventGapMs: 200 });
    exa = await startExaStandIn();
    platform = await startEmbedded(dataDir, {
      ...admin,
      PLANS: JSON.stringify(PLANS),
      CHAT_PROVIDERS: JSON.stringify({
        providers: [
          {
            id: 'standin',
            kind: 'openai',
            baseUrl: openai.url,
            apiKey: 'sk-test',
            retries: 0,
            models: [{ id: 'gpt-4o-mini' }, { id: 'gpt-4o' }, { id: 'gpt-image-1', modality: 'image' }],
          },
          { id: 'slow', kind: 'openai', baseUrl: slow.url, apiKey: 'sk-test', retries: 0, models: [{ id: 'slow-1' }] },
        ],
      }),
      WEB_SEARCH_PROVIDER: 'exa',
      WEB_SEARCH_URL: exa.url,
      WEB_SEARCH_API_KEY: exa.apiKey,
    });
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
    await openai?.close();
    await slow?.close();
    await exa?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists the plans and the default', async () => {
    const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const listed = await call(platform.url, token, 'GET', '/api/plans');
    expect(listed.body).toEqual({
      defaultPlanId: 'free',
      plans: [
        {
          id: 'free',
          name: 'Free',
          limits: { monthlyTokens: 10 },
          entitlements: { webSearch: false, models: ['gpt-4o-mini'] },
        },
        { id: 'pro', name: 'Pro', limits: {}, entitlements: { webSearch: true } },
        { id: 'tiny', name: 'Tiny', limits: { monthlyTokens: 50 }, entitlements: { webSearch: false } },
        { id: 'pics', name: 'Pics', limits: { monthlyImages: 2 }, entitlements: { webSearch: false } },
      ],
    });
  });

  it('refuses a model outside the plan, and stops chat once the month’s tokens are spent', async () => {
    const { token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    // The model list holds only what the plan includes (as OpenAI lists what a key may use).
    const listed = async (who: string) =>
      ((await call(platform.url, who, 'GET', '/api/v1/models')).body.data as Array<{ id: string }>).map((m) => m.id);
    expect(await listed(token)).toEqual(['gpt-4o-mini']);
    // Retrieving one model follows the list: a model outside the plan is as unknown.
    expect((await call(platform.url, token, 'GET', '/api/v1/models/gpt-4o-mini')).body.id).toBe('gpt-4o-mini');
    const hidden = await call(platform.url, token, 'GET', '/api/v1/models/gpt-4o');
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toMatchObject({ code: 'model_not_found', type: 'not_found_error', param: 'model' });
    const outside = await chat(token, 'gpt-4o');
    expect(outside.status).toBe(403);
    expect(outside.body.error).toMatchObject({
      code: 'plan_model_not_allowed',
      type: 'permission_error',
      param: 'model',
    });
    const first = await chat(token, 'gpt-4o-mini');
    expect(first.status, first.text).toBe(200);
    expect(first.body.usage.total_tokens).toBeGreaterThanOrEqual(10);
    // The budget is spent: once the gateway's five-second view of it has passed, chat stops.
    await new Promise((r) => setTimeout(r, 5500));
    const spent = await chat(token, 'gpt-4o-mini');
    expect(spent.status).toBe(403);
    expect(spent.body.error.code).toBe('plan_limit_reached');
    const now = new Date();
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(spent.body.error.message).toContain(reset);

    const subscription = await call(platform.url, token, 'GET', '/api/subscription');
    expect(subscription.body).toMatchObject({ plan: { id: 'free' }, periodEnd: reset });
    expect(subscription.body.usage.tokens).toBe(first.body.usage.total_tokens);
  });

  it('lets parallel calls spend the token budget at most one call past it', async () => {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const assigned = await call(platform.url, admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${person.user.id}/plan`, {
      planId: 'tiny',
    });
    expect(assigned.status, assigned.text).toBe(204);
    // 20 at once, each 16 tokens by the stand-in's count, on a budget of 50.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(platform.url, person.token, 'POST', '/api/v1/chat/completions', {
          model: 'gpt-4o-mini',
          max_tokens: 100,
          messages: [{ role: 'user', content: 'how many tokens is this' }],
        }),
      ),
    );
    const served = answers.filter((a) => a.status === 200);
    expect(served.length).toBeGreaterThan(0);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.error.code).toBe('plan_limit_reached');
    }
    const perCall = served[0].body.usage.total_tokens;
    const used = served.reduce((sum, a) => sum + a.body.usage.total_tokens, 0);
    expect(used).toBeLessThanOrEqual(50 + perCall);
  });

  it('never lets image calls past the monthly image budget, sent together or one after another', async () => {
    const image = (token: string) =>
      call(platform.url, token, 'POST', '/api/v1/images/generations', { model: 'gpt-image-1', prompt: 'a kettle' });
    const onPics = async () => {
      const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
      const assigned = await call(platform.url, admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${person.user.id}/plan`, {
        planId: 'pics',
      });
      expect(assigned.status, assigned.text).toBe(204);
      return person;
    };
    const expectRefused = (answer: Awaited<ReturnType<typeof image>>) => {
      expect(answer.status, answer.text).toBe(403);
      expect(answer.body.error.code).toBe('plan_limit_reached');
    };

    const together = await onPics();
    const answers = await Promise.all(Array.from({ length: 6 }, () => image(together.token)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
    answers.filter((a) => a.status !== 200).forEach(expectRefused);

    // One after another, within the entitlements' five seconds.
    const sequential = await onPics();
    expect((await image(sequential.token)).status).toBe(200);
    expect((await image(sequential.token)).status).toBe(200);
    expectRefused(await image(sequential.token));
    // Usage records are written in batches, within a second.
    await expect
      .poll(async () => (await call(platform.url, sequential.token, 'GET', '/api/subscription')).body.usage.images)
      .toBe(2);
  });

  it('counts a streamed answer the client leaves in the middle, by an estimate of what it received', async () => {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    const assigned = await call(platform.url, admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${person.user.id}/plan`, {
      planId: 'pro',
    });
    expect(assigned.status, assigned.text).toBe(204);
    const question = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const leaving = new AbortController();
    const res = await fetch(`${platform.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${person.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow-1', stream: true, messages: [{ role: 'user', content: question }] }),
      signal: leaving.signal,
    });
    expect(res.status).toBe(200);
    // Read until 8 pieces of text arrived, then leave (the answer has 41, and its usage comes last).
    let received = '';
    let pieces = 0;
    let buffered = '';
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    while (pieces < 8) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before the client left');
      buffered += decoder.decode(value, { stream: true });
      const events = buffered.split('\n\n');
      buffered = events.pop()!;
      for (const event of events) {
        const chunk = JSON.parse(event.replace(/^data: /, ''));
        expect(chunk.usage ?? null).toBeNull();
        const content = chunk.choices[0]?.delta?.content;
        if (content) {
          received += content;
          pieces++;
        }
      }
    }
    leaving.abort();
    await reader.cancel().catch(() => undefined);

    // The record is sent shortly after the stream ends: wait for it.
    const tokens = async () => (await call(platform.url, person.token, 'GET', '/api/subscription')).body.usage.tokens;
    let counted = await tokens();
    for (let waited = 0; counted === 0 && waited < 10_000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      counted = await tokens();
    }
    // The prompt's characters / 4 and the text relayed (what the client got, perhaps a piece more),
    // far from the whole answer's.
    const prompt = Math.ceil(question.length / 4);
    expect(counted).toBeGreaterThanOrEqual(prompt + Math.ceil(received.length / 4));
    expect(counted).toBeLessThan(prompt + Math.ceil(`echo: ${question}`.length / 4));
  });

  it('gives web search with the plan’s entitlement, assigned by an administrator', async () => {
    const person = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    expect((await search(person.token)).status).toBe(403);
    const assign = (token: string, userId: string, planId: string) =>
      call(platform.url, token, 'PUT', `/api/admin/users/${userId}/plan`, { planId });
    expect((await assign(person.token, person.user.id, 'pro')).status).toBe(403);
    expect((await assign(admin.ADMIN_TOKEN, person.user.id, 'gold')).status).toBe(400);
    expect((await assign(admin.ADMIN_TOKEN, '00000000-0000-4000-8000-000000000000', 'pro')).status).toBe(404);
    expect((await assign(admin.ADMIN_TOKEN, person.user.id, 'pro')).status).toBe(204);
    expect((await search(person.token)).status).toBe(200);
    const subscription = await call(platform.url, person.token, 'GET', '/api/subscription');
    expect(subscription.body.plan).toEqual({ id: 'pro', name: 'Pro', limits: {}, entitlements: { webSearch: true } });
    // Pro allows every model, and lists them all.
    expect((await chat(person.token, 'gpt-4o')).status).toBe(200);
    const listed = (await call(platform.url, person.token, 'GET', '/api/v1/models')).body.data.map(
      (m: { id: string }) => m.id,
    );
    expect(listed).toEqual(expect.arrayContaining(['gpt-4o-mini', 'gpt-4o']));
  });
});
