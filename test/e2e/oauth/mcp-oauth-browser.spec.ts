import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, createUser, type TestUser } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { launchChromium } from '../../support/browser.js';
import { describeWith } from '../../support/services.js';

/**
 * What an MCP client does when a user adds this server by its URL alone: the official MCP SDK
 * client with its OAuth client provider meets a 401, discovers the protected resource and the
 * authorization server, registers itself (RFC 7591), sends the person to the consent page
 * (headless Chromium from Debian's package: sign in, approve), exchanges the code with PKCE,
 * calls tools, and refreshes its token when the access token stops working.
 */
class TestProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  refreshes = 0;

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Desk assistant',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    if (this.saved) this.refreshes++;
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describeWith(['chromium'], 'MCP SDK client with OAuth (browser consent)', () => {
  const dataDir = tempDir('kw-mcp-oauth-');
  const admin = adminEnv();
  let platform: PlatformProcess;
  let base: string;
  let browser: Browser;
  let person: TestUser;
  let callback: Server;
  let redirectUrl: string;

  beforeAll(async () => {
    platform = await startEmbedded(dataDir, admin);
    base = platform.url;
    person = await createUser(base, admin.ADMIN_TOKEN);
    // The client's loopback redirect (RFC 8252): it only has to answer the browser.
    callback = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.'),
    );
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('connects from nothing but the URL: discovery, registration, consent, tokens, tools, refresh', async () => {
    const provider = new TestProvider(redirectUrl);
    const serverUrl = new URL(`${base}/api/mcp`);
    const first = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    await expect(new Client({ name: 'desk', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(provider.client?.client_id).toMatch(/^[0-9a-f-]{36}$/);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${base}/oauth2/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${base}/api/mcp`);
    // Least privilege: the SDK asks for the default scopes the 401 named, not every scope there is.
    const everyday = [
      'workspaces:read',
      'profile:read',
      'search:read',
      'fragments:read',
      'fragments:write',
      'collections:read',
      'files:read',
    ];
    expect(authorizationUrl.searchParams.get('scope')!.split(' ').sort()).toEqual([...everyday].sort());

    // The person: the consent page, signed in, approves.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizationUrl.href);
    expect(await page.textContent('#sign-in')).toContain('Desk assistant');
    await page.fill('#email', person.email);
    await page.fill('#password', person.password);
    await Promise.all([page.waitForEvent('load'), page.click('#sign-in-button')]);
    await page.waitForSelector('#review:not(.hidden)');
    expect(await page.textContent('#review')).toContain('/api/mcp');
    expect(await page.isVisible('#terms')).toBe(false);
    // The page ticks what was asked for, and only that.
    const ticked: string[] = await page
      .locator('input.scope')
      .evaluateAll((boxes: any[]) => boxes.filter((b) => b.checked).map((b) => b.value));
    expect(ticked.sort()).toEqual([...everyday].sort());
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectUrl)), page.click('#approve')]);
    const landed = new URL(page.url());
    await context.close();
    const code = landed.searchParams.get('code')!;
    expect(code).toMatch(/^kwo_/);

    await first.finishAuth(code);
    expect(provider.saved?.access_token).toMatch(/^kwa_/);
    expect(provider.saved!.scope!.split(' ').sort()).toEqual([...everyday].sort());
    const client = new Client({ name: 'desk', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('list_workspaces');
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain(person.email);

    // The access token stops working (revoked): the SDK refreshes and carries on.
    const revoked = await fetch(`${base}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: provider.saved!.access_token, token_type_hint: 'access_token' }).toString(),
    });
    expect(revoked.status).toBe(200);
    const again = await client.callTool({ name: 'whoami', arguments: {} });
    expect(again.isError).toBeFalsy();
    expect(provider.refreshes).toBe(1);
    await client.close();
  });
});
