import { rmSync } from 'node:fs';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, createUser, signIn, type TestUser } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { launchChromium } from '../../support/browser.js';
import { describeWith } from '../../support/services.js';

const CLAIM_GRANT = 'urn:kw:agent-auth:grant-type:claim';
/** The user-code window of this platform (seconds): long enough for the journey, short enough to wait out. */
const WINDOW_SECONDS = 8;
const INTERVAL_SECONDS = 1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Claim {
  claim: { verification_uri: string; expires_in: number };
  claim_token: string;
  expires_in: number;
  interval: number;
}

/**
 * The service-assisted claim end to end: an agent starts a claim and polls the token endpoint
 * (RFC 8628 answers) while a person, in headless Chromium (Debian's package, driven by
 * playwright-core), signs in on the claim page, reviews the access and approves or denies. The
 * user code is read off the page and must appear in no API answer and no log line.
 */
describeWith(['chromium'], 'agent claims in the browser', () => {
  const dataDir = tempDir('kw-agent-claim-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  let browser: Browser;
  let person: TestUser;
  /** Every API answer the agent and the browser received (the page's own HTML excluded). */
  const answers: string[] = [];
  const userCodes: string[] = [];

  const agentPost = async (path: string, body: Record<string, string>, form = false) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
      body: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
    });
    const text = await res.text();
    answers.push(text);
    return { status: res.status, body: JSON.parse(text) as any };
  };
  const startClaim = async (email: string) => {
    const res = await agentPost('/agent/identity', {
      type: 'service_auth',
      login_hint: email,
      client_name: 'Research assistant',
      scope: 'workspaces:read fragments:read search:read',
    });
    expect(res.status).toBe(200);
    return res.body as Claim;
  };
  const poll = (claim: Claim) =>
    agentPost('/oauth2/token', { grant_type: CLAIM_GRANT, claim_token: claim.claim_token }, true);

  /** Opens the claim page, signs in when asked, and answers the user code the page shows. */
  async function review(page: Page, claim: Claim, user: TestUser): Promise<string> {
    await page.goto(claim.claim.verification_uri);
    if (await page.isVisible('#sign-in')) {
      await page.fill('#email', user.email);
      await page.fill('#password', user.password);
      await Promise.all([page.waitForEvent('load'), page.click('#sign-in-button')]);
    }
    await page.waitForSelector('#review:not(.hidden)');
    const code = (await page.textContent('#user-code'))!.trim();
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    userCodes.push(code);
    return code;
  }

  async function newPage(): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('response', async (response) => {
      if (response.request().resourceType() === 'document') return;
      answers.push(await response.text().catch(() => ''));
    });
    return page;
  }

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, {
      ...admin,
      LOG_LEVEL: 'debug',
      AGENT_CLAIM_WINDOW_SECONDS: String(WINDOW_SECONDS),
      AGENT_CLAIM_POLL_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
    });
    base = platform.url;
    person = await createUser(base, admin.ADMIN_TOKEN, { email: 'grace@example.test' });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a claim the same whether or not the email has an account', async () => {
    const known = await startClaim(person.email);
    const unknown = await startClaim('nobody-here@example.test');
    const shape = (c: Claim) => ({
      keys: Object.keys(c).sort(),
      claimKeys: Object.keys(c.claim).sort(),
      expires: c.expires_in,
      window: c.claim.expires_in,
      interval: c.interval,
      uri: c.claim.verification_uri.replace(/[0-9a-f-]{36}$/, '<id>'),
      token: c.claim_token.replace(/^kwc_.{36}$/, '<token>'),
    });
    expect(shape(unknown)).toEqual(shape(known));
    expect(shape(known).uri).toBe(`${base}/agent/claim/<id>`);
  });

  it('polls pending, slows a fast poller down, and gets tokens once the person approves in the browser', async () => {
    const claim = await startClaim(person.email);
    expect(claim.interval).toBe(INTERVAL_SECONDS);
    const first = await poll(claim);
    expect(first).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    const tooFast = await poll(claim);
    expect(tooFast).toMatchObject({ status: 400, body: { error: 'slow_down' } });
    const interval = INTERVAL_SECONDS + 5;

    const page = await newPage();
    await review(page, claim, person);
    expect(await page.textContent('#review')).toContain('Research assistant');
    // Approving needs the terms accepted: the page shows the refusal and nothing is decided.
    await page.click('#approve');
    await expect.poll(() => page.textContent('#decision-error')).toMatch(/terms/);
    await page.check('#terms');
    // Narrow the access: drop search.
    await page.uncheck('input.scope[value="search:read"]');
    await page.click('#approve');
    await page.waitForSelector('#message:not(.hidden)');
    expect(await page.textContent('#message-text')).toMatch(/Approved/);

    await sleep(interval * 1000);
    const granted = await poll(claim);
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    expect(granted.body).toMatchObject({ token_type: 'Bearer', scope: 'workspaces:read fragments:read' });
    const me = await fetch(`${base}/api/auth/validate-token`, {
      headers: { authorization: `Bearer ${granted.body.access_token}` },
    });
    const credential = ((await me.json()) as any).credential;
    expect(credential).toMatchObject({
      kind: 'agent',
      name: 'Research assistant',
      scopes: ['workspaces:read', 'fragments:read'],
    });
    // Tokens are handed out once.
    await sleep(interval * 1000);
    expect((await poll(claim)).body.error).toBe('invalid_grant');
    await page.context().close();
  });

  it('a denial answers access_denied', async () => {
    const claim = await startClaim(person.email);
    const page = await newPage();
    await review(page, claim, person);
    await page.click('#deny');
    await page.waitForSelector('#message:not(.hidden)');
    expect(await page.textContent('#message-text')).toMatch(/Denied/);
    const answer = await poll(claim);
    expect(answer).toMatchObject({ status: 400, body: { error: 'access_denied' } });
    await page.context().close();
  });

  it('an agent withdraws its claim by revoking the claim token: polls expire and the page is gone', async () => {
    const claim = await startClaim(person.email);
    expect(await poll(claim)).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    const revoked = await fetch(`${base}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: claim.claim_token }).toString(),
    });
    expect(revoked.status).toBe(200);
    // No wait: the interval applies to polls, and the answer no longer depends on it.
    expect(await poll(claim)).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    // Signed out, the person is told at once (404), not asked to sign in only to learn it.
    const page = await newPage();
    const shown = await page.goto(claim.claim.verification_uri);
    expect(shown!.status()).toBe(404);
    expect(await page.isVisible('#sign-in')).toBe(false);
    expect(await page.isVisible('#review:not(.hidden)')).toBe(false);
    // The person sees a page saying so, not a JSON body.
    expect(await page.textContent('#message-text')).toContain('no longer exists');
    await page.context().close();
    // 404, with the page's own headers (no framing, no caching), signed in or not; a made-up id too.
    const session = await signIn(base, person.email, person.password);
    for (const [url, cookie] of [
      [claim.claim.verification_uri, session.cookie],
      [claim.claim.verification_uri, ''],
      [`${base}/agent/claim/${crypto.randomUUID()}`, ''],
      [`${base}/agent/claim/not-a-claim`, ''],
    ]) {
      const gone = await fetch(url, { headers: cookie ? { cookie } : {} });
      expect([gone.status, gone.headers.get('content-type')], url).toEqual([404, 'text/html; charset=utf-8']);
      expect(gone.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect([gone.headers.get('x-frame-options'), gone.headers.get('cache-control')]).toEqual(['DENY', 'no-store']);
      expect(await gone.text()).toContain('no longer exists');
    }
  });

  it('an expired user-code window is renewed with /agent/identity/claim', async () => {
    const claim = await startClaim(person.email);
    const page = await newPage();
    await review(page, claim, person);
    await sleep(WINDOW_SECONDS * 1000 + 500);
    // The old page's code no longer decides anything; a reload says the window ended.
    await page.check('#terms');
    await page.click('#approve');
    await expect.poll(() => page.textContent('#decision-error')).toMatch(/out of date/);
    await page.reload();
    expect(await page.textContent('#message-text')).toMatch(/expired/);

    const wrongEmail = await agentPost('/agent/identity/claim', {
      claim_token: claim.claim_token,
      email: 'someone@example.test',
    });
    expect(wrongEmail).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const renewed = await agentPost('/agent/identity/claim', {
      claim_token: claim.claim_token,
      email: person.email.toUpperCase(),
    });
    expect(renewed.status).toBe(200);
    expect(renewed.body.claim.verification_uri).toBe(claim.claim.verification_uri);
    expect(renewed.body.claim.expires_in).toBe(WINDOW_SECONDS);

    await review(page, claim, person);
    await page.check('#terms');
    await page.click('#approve');
    await page.waitForSelector('#message:not(.hidden)');
    expect(await page.textContent('#message-text')).toMatch(/Approved/);
    const granted = await poll(claim);
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    await page.context().close();
  });

  it('another account sees that the request is not for it', async () => {
    const other = await createUser(base, admin.ADMIN_TOKEN);
    const claim = await startClaim(person.email);
    const page = await newPage();
    await page.goto(claim.claim.verification_uri);
    await page.fill('#email', other.email);
    await page.fill('#password', other.password);
    await Promise.all([page.waitForEvent('load'), page.click('#sign-in-button')]);
    await page.waitForSelector('#message:not(.hidden)');
    expect(await page.textContent('#message-text')).toContain(person.email);
    expect(await page.isVisible('#user-code')).toBe(false);
    await page.context().close();
  });

  it('shows the user code on the page only: in no API answer and no log line', async () => {
    expect(userCodes.length).toBeGreaterThanOrEqual(4);
    expect(answers.length).toBeGreaterThan(10);
    const logs = [...platform.logs.map((l) => JSON.stringify(l)), ...platform.stderr].join('\n');
    for (const code of userCodes) {
      expect(answers.filter((a) => a.includes(code))).toEqual([]);
      expect(logs.includes(code)).toBe(false);
    }
  });
});
