import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { startExaStandIn, type ExaStandIn } from '../../support/stand-ins/exa-stand-in.js';
import { call } from './chat-fixture.js';

/**
 * POST /api/v1/web/search through the hosted-API adapter (an Exa stand-in on loopback): 403
 * until an administrator grants web-search access, results in the platform's shape after,
 * provider failures as 502 in the OpenAI shape without the provider's key.
 */
describe('web search', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-websearch-');
  let exa: ExaStandIn;
  let platform: PlatformProcess;
  let user: Awaited<ReturnType<typeof userWithToken>>;
  const search = (token: string, body: unknown) => call(platform.url, token, 'POST', '/api/v1/web/search', body);

  beforeAll(async () => {
    exa = await startExaStandIn();
    platform = await startEmbedded(dataDir, {
      ...admin,
      WEB_SEARCH_PROVIDER: 'exa',
      WEB_SEARCH_URL: exa.url,
      WEB_SEARCH_API_KEY: exa.apiKey,
      WEB_SEARCH_TIMEOUT_MS: '1000',
    });
    user = await userWithToken(platform.url, admin.ADMIN_TOKEN);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await exa?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 403 without web-search access, before calling the provider', async () => {
    const res = await search(user.token, { query: 'vector databases' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'web_search_access_required', param: '' });
    expect(exa.requests).toHaveLength(0);
  });

  it('only an administrator grants access', async () => {
    const self = await call(platform.url, user.token, 'PUT', `/api/admin/users/${user.user.id}/web-search`);
    expect(self.status).toBe(403);
    const unknown = await call(
      platform.url,
      admin.ADMIN_TOKEN,
      'PUT',
      '/api/admin/users/00000000-0000-4000-8000-000000000000/web-search',
    );
    expect(unknown.status).toBe(404);
    const granted = await call(platform.url, admin.ADMIN_TOKEN, 'PUT', `/api/admin/users/${user.user.id}/web-search`);
    expect(granted.status).toBe(204);
  });

  it('searches with the granted access: the fields reach the provider, results come back in one shape', async () => {
    const res = await search(user.token, {
      query: 'vector databases',
      num_results: 3,
      type: 'neural',
      include_text: true,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.provider).toBe('exa');
    expect(res.body.data).toHaveLength(3);
    expect(res.body.data[0]).toMatchObject({
      title: 'Article 1',
      url: 'https://example.org/article-1',
      text: expect.any(String),
    });
    const sent = exa.requests.at(-1)!;
    expect(sent.headers['x-api-key']).toBe(exa.apiKey);
    expect(JSON.parse(sent.body)).toMatchObject({ query: 'vector databases', numResults: 3, type: 'neural' });
  });

  it('refuses bad fields with the OpenAI shape naming the field', async () => {
    for (const [body, param] of [
      [{ query: '' }, 'query'],
      [{ query: 'x', num_results: 0 }, 'num_results'],
      [{ query: 'x', type: 'fuzzy' }, 'type'],
      [{ query: 'x', include_text: 'yes' }, 'include_text'],
    ] as const) {
      const res = await search(user.token, body);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
  });

  it.each(['fail', 'hang', 'malformed'] as const)(
    'a provider that answers %s is 502, without its key',
    async (mode) => {
      exa.setMode(mode);
      const res = await search(user.token, { query: 'anything' });
      exa.setMode('ok');
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ type: 'server_error', code: 'upstream_error' });
      expect(res.text).not.toContain(exa.apiKey);
    },
  );

  it('answers 403 again once access is revoked', async () => {
    const revoked = await call(
      platform.url,
      admin.ADMIN_TOKEN,
      'DELETE',
      `/api/admin/users/${user.user.id}/web-search`,
    );
    expect(revoked.status).toBe(204);
    expect((await search(user.token, { query: 'x' })).status).toBe(403);
    const logs = JSON.stringify(platform.logs);
    expect(logs).not.toContain(exa.apiKey);
  });
});
