import { mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { type Browser, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { ROOT, startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { launchChromium } from '../../support/browser.js';
import { describeWith } from '../../support/services.js';
import {
  scriptedProviders,
  startScriptedModel,
  type ScriptedModel,
  type ScriptedRequest,
} from '../../support/stand-ins/scripted-model-stand-in.js';
import { call } from './chat-fixture.js';

// Code passed to page.evaluate runs in the browser; the suite is type-checked without DOM types.
declare const window: any;
declare const document: any;
declare const getComputedStyle: any;
declare const MutationObserver: any;
type HTMLIFrameElement = any;

const ISSUER = 'https://idp.widget.test';
const AUDIENCE = 'kw-widget';
const WARRANTY = 'The Zephyr kettle carries a **seven-year** warranty. <script>window.__fromFragment = 1</script>';
const SCREENSHOTS = path.join(ROOT, 'test-results');

const lastTool = (request: ScriptedRequest) =>
  JSON.parse([...request.messages].reverse().find((m) => m.role === 'tool')!.content);

/** A loopback page server: one host page that includes the widget, on an origin of its own. */
async function startHostSite(page: (url: URL) => string): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(url));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * The embed widget in headless Chromium (Debian's package, driven by playwright-core): a host
 * page on one loopback origin includes /embed/widget.js from the platform on another, opens the
 * launcher, asks, and reads the answer streamed into the platform's frame; a page on an origin
 * the key does not allow gets no chat; host events and feedback reach the parent only from the
 * frame's origin; the file bridge; model output and fragment content render as text; and
 * screenshots at desktop and phone width for review (test-results/).
 */
describeWith(['chromium'], 'embed widget (browser)', () => {
  const admin = adminEnv();
  const dataDir = tempDir('kw-embed-widget-');
  let model: ScriptedModel;
  let platform: PlatformProcess;
  let base: string;
  let browser: Browser;
  let owner: Awaited<ReturnType<typeof userWithToken>>;
  let issuerKey: CryptoKey;
  let jwt: string;
  let ws: string;
  let host: { origin: string; server: Server };
  let foreign: { origin: string; server: Server };
  const keys: Record<string, string> = {};
  const api = (token: string, method: string, p: string, body?: unknown) => call(base, token, method, p, body);

  const hostPage = (url: URL) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Kettle shop</title>
<style>body { font-family: sans-serif; margin: 40px; } h1 { color: #333; }</style></head>
<body><h1>Kettle shop</h1><p>Our kettles boil water.</p>
<script>
  window.received = [];
  window.addEventListener('message', (e) => window.received.push({ origin: e.origin, data: e.data }));
</script>
<script src="${base}/embed/widget.js" data-embed-key="${url.searchParams.get('key')}"${
    url.searchParams.get('stall') ? ` data-stall-timeout="${url.searchParams.get('stall')}"` : ''
  }></script>
<script>kwChat.setUserToken(${JSON.stringify(url.searchParams.get('jwt') ?? '')});</script>
${url.searchParams.get('poster') ? `<iframe id="poster" src="${url.searchParams.get('poster')}"></iframe>` : ''}
</body></html>`;

  async function newPage(options: {
    key: string;
    width?: number;
    site?: string;
    poster?: string;
    /** The widget's data-stall-timeout, in seconds. */
    stall?: string;
  }): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: options.width ?? 1280, height: 800 } });
    const query = new URLSearchParams({
      key: options.key,
      jwt,
      ...(options.poster ? { poster: options.poster } : {}),
      ...(options.stall ? { stall: options.stall } : {}),
    });
    await page.goto(`${options.site ?? host.origin}/?${query}`);
    return page;
  }

  /** The chat frame, once its script said it is ready. */
  async function chatFrame(page: Page): Promise<Frame> {
    await page.locator('[data-kw-chat=launcher]').click();
    const handle = await page.waitForSelector('iframe[data-kw-chat=frame]');
    const frame = (await handle.contentFrame())!;
    await frame.waitForSelector('#input');
    return frame;
  }

  async function ask(frame: Frame, text: string): Promise<void> {
    await frame.locator('#input').fill(text);
    await frame.locator('#input').press('Enter');
  }

  /** The text of the n-th answer (0-based; questions are not answers), once it is done. */
  async function answerText(frame: Frame, index: number): Promise<string> {
    const done = '.msg.assistant[data-message-id]';
    await frame.waitForFunction(([selector, i]) => document.querySelectorAll(selector).length > i, [
      done,
      index,
    ] as const);
    return (await frame.locator(done).nth(index).textContent()) ?? '';
  }

  beforeAll(async () => {
    // Pieces 30 ms apart, as a model writes: the frame shows the answer growing.
    model = await startScriptedModel(['scripted-1'], { pieceDelayMs: 30 });
    platform = await startEmbedded(dataDir, {
      ...admin,
      CHAT_PROVIDERS: scriptedProviders(model),
    });
    base = platform.url;
    owner = await userWithToken(base, admin.ADMIN_TOKEN);
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    issuerKey = privateKey;
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'w1', alg: 'ES256' };
    jwt = await new SignJWT({ email: owner.user.email, email_verified: true })
      .setProtectedHeader({ alg: 'ES256', kid: 'w1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('30m')
      .sign(issuerKey);

    ws = (await api(owner.token, 'POST', '/api/workspaces', { name: 'Kettles' })).body.workspace.id;
    const typeId = (await api(owner.token, 'GET', `/api/workspaces/${ws}/fragment-types`)).body.items[0].id;
    const fragment = await api(owner.token, 'POST', '/api/memory-fragments', {
      workspaceId: ws,
      fragmentTypeId: typeId,
      title: 'Zephyr warranty',
      content: WARRANTY,
    });
    expect(fragment.status, fragment.text).toBe(201);

    host = await startHostSite(hostPage);
    foreign = await startHostSite((url) =>
      url.pathname === '/poster'
        ? `<!doctype html><script>
            for (let i = 0; i < parent.frames.length; i++)
              parent.frames[i].postMessage({ source: 'kw-embed-host', kind: 'SEND', text: 'forged by a foreign frame' }, '*');
          </script>`
        : hostPage(url),
    );
    const trustedIssuer = { issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [publicJwk] } };
    for (const [name, features] of Object.entries({
      events: {
        feedbackMode: 'host-event',
        structuredQuestions: true,
        workspaceFiles: { exposeToParent: true },
        theme: 'dark',
      },
      plain: { feedbackMode: 'fragment-feedback', theme: 'light' },
    })) {
      const config = await api(owner.token, 'POST', '/api/v2/configs', {
        workspaceId: ws,
        name: `Kettle help (${name})`,
        features,
        trustedIssuer,
      });
      expect(config.status, config.text).toBe(201);
      const key = await api(owner.token, 'POST', `/api/v2/configs/${config.body.config.id}/keys`, {
        label: name,
        allowedDomains: [host.origin],
      });
      keys[name] = key.body.token;
    }
    const stateless = await api(owner.token, 'POST', '/api/v2/configs', {
      workspaceId: ws,
      name: 'Kettle help (stateless)',
      stateless: true,
      trustedIssuer,
    });
    expect(stateless.status, stateless.text).toBe(201);
    keys.stateless = (
      await api(owner.token, 'POST', `/api/v2/configs/${stateless.body.config.id}/keys`, {
        label: 'stateless',
        allowedDomains: [host.origin],
      })
    ).body.token;
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await model?.close();
    host?.server.close();
    foreign?.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the script cacheably and the frame only to the key’s origins', async () => {
    const script = await fetch(`${base}/embed/widget.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('cache-control')).toBe('public, max-age=300');
    const body = await script.text();
    expect(body.length).toBeLessThan(20_000);
    expect(body).not.toContain('sourceMappingURL');
    // Self-contained: no module imports (so nothing from a CDN either).
    expect(body).not.toMatch(/^\s*import[\s{]/m);
    const etag = script.headers.get('etag')!;
    // RFC 9110's weak comparison: the tag, its weak form, a list holding it, or `*`.
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await fetch(`${base}/embed/widget.js`, { headers: { 'if-none-match': header } });
      expect(again.status, header).toBe(304);
    }
    const changed = await fetch(`${base}/embed/widget.js`, { headers: { 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);

    const frame = await fetch(`${base}/embed/frame?key=${keys.plain}`);
    expect(frame.status).toBe(200);
    expect(frame.headers.get('content-security-policy')).toContain(`frame-ancestors ${host.origin}`);
    expect(frame.headers.get('content-security-policy')).toContain("script-src 'self'");
    const unknown = await fetch(`${base}/embed/frame?key=kwek_unknown`);
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { code: string }).code).toBe('EMBED_KEY_INVALID');
  });

  it('answers in the frame with the fragment found, streamed, and continues the conversation', async () => {
    const page = await newPage({ key: keys.plain });
    const frame = await chatFrame(page);
    // Every change of the answer's text, to see it arrive in pieces.
    await frame.evaluate(() => {
      (window as any).seen = [];
      new MutationObserver(() => {
        const last = [...document.querySelectorAll('.msg.assistant')].pop();
        if (last) (window as any).seen.push(last.textContent);
      }).observe(document.getElementById('log')!, { childList: true, subtree: true, characterData: true });
    });
    model.script(
      { toolCalls: [{ name: 'search', arguments: { query: 'Zephyr warranty', workspaceId: ws } }] },
      (request) => ({
        toolCalls: [{ name: 'get_fragment', arguments: { fragmentId: lastTool(request).hits[0]?.fragmentId } }],
      }),
      (request) => ({ text: `From our docs: ${lastTool(request).fragment.content}` }),
    );
    await ask(frame, 'How long is the warranty?');
    const text = await answerText(frame, 0);
    expect(text).toContain('From our docs: The Zephyr kettle carries a seven-year warranty.');
    expect(await frame.locator('.msg.assistant strong').first().textContent()).toBe('seven-year');
    const seen: string[] = await frame.evaluate(() => (window as any).seen);
    expect(new Set(seen.filter((s) => s && text.startsWith(s) && s !== text)).size).toBeGreaterThan(1);

    model.script((request) => ({
      text: `You asked ${request.messages.filter((m) => m.role === 'user').length} questions.`,
    }));
    await ask(frame, 'And the lid?');
    expect(await answerText(frame, 1)).toBe('You asked 2 questions.');
    await page.close();
  });

  it('gives a page on an origin the key does not allow no chat, and the host page cannot read the frame', async () => {
    const page = await newPage({ key: keys.plain, site: foreign.origin });
    await page.locator('[data-kw-chat=launcher]').click();
    await page.waitForTimeout(1_000);
    for (const frame of page.frames().filter((f) => f !== page.mainFrame())) {
      expect(await frame.$('#input')).toBeNull();
    }
    // The API refuses the page's own requests with that key (no CORS answer: fetch fails).
    const direct = await page.evaluate(
      async ([url]) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages":[]}' }).then(
          (r) => `status ${r.status}`,
          () => 'refused',
        ),
      [`${base}/api/v2/embed/chat?key=${keys.plain}`],
    );
    expect(direct).toBe('refused');
    await page.close();

    const allowed = await newPage({ key: keys.plain });
    await chatFrame(allowed);
    const read = await allowed.evaluate(() => {
      const frame = document.querySelector('iframe[data-kw-chat=frame]') as HTMLIFrameElement;
      try {
        return frame.contentDocument === null ? 'no access' : 'readable';
      } catch {
        return 'no access';
      }
    });
    expect(read).toBe('no access');
    await allowed.close();
  });

  it('sends host events and feedback to the parent only, from the frame’s origin, and ignores foreign messages', async () => {
    const page = await newPage({ key: keys.events, poster: `${foreign.origin}/poster` });
    const frame = await chatFrame(page);
    model.script({ text: 'Boil, then rinse.' });
    await ask(frame, 'How do I clean it?');
    const messageId = await frame.waitForFunction(() =>
      document.querySelector('.msg.assistant[data-message-id]')?.getAttribute('data-message-id'),
    );
    await frame.locator('.feedback input').fill('Short and clear');
    await frame.locator('.feedback button.positive').click();

    model.script({
      toolCalls: [
        {
          name: 'ask_user',
          arguments: { questions: [{ question: 'Which model?', options: ['Zephyr', 'Zephyr Mini'] }] },
        },
      ],
    });
    await ask(frame, 'It leaks');
    await frame.waitForSelector('.question fieldset');
    model.script((request) => ({ text: `Noted: ${lastTool(request).answers[0].selected.join(',')}` }));
    await frame.locator('.question label', { hasText: 'Zephyr Mini' }).click();
    await frame.locator('.question button').click();
    expect(await answerText(frame, 1)).toBe('Noted: Zephyr Mini');
    await page.waitForFunction(
      () => (window as any).received.filter((m: any) => m.data?.event === 'answer_finished').length === 2,
    );

    const received: Array<{ origin: string; data: any }> = await page.evaluate(() => (window as any).received);
    const fromFrame = received.filter((m) => m.data?.source === 'kw-embed');
    expect(new Set(fromFrame.map((m) => m.origin))).toEqual(new Set([base]));
    const events = fromFrame.filter((m) => m.data.kind === 'EVENT').map((m) => m.data.event);
    expect(events).toEqual([
      'opened',
      'message_sent',
      'answer_finished',
      'message_sent',
      'question_shown',
      'answer_finished',
    ]);
    const finished = fromFrame.find((m) => m.data.event === 'answer_finished')!.data;
    expect(finished.messageId).toBe(await messageId.jsonValue());
    const feedback = fromFrame.filter((m) => m.data.kind === 'FEEDBACK').map((m) => m.data);
    expect(feedback).toEqual([
      {
        source: 'kw-embed',
        kind: 'FEEDBACK',
        messageId: await messageId.jsonValue(),
        rating: 'positive',
        comment: 'Short and clear',
      },
    ]);
    // The foreign frame's forged SEND was ignored: only the two messages typed here were sent.
    expect(await frame.locator('.msg.user').count()).toBe(2);
    expect(await frame.locator('.msg.user', { hasText: 'forged' }).count()).toBe(0);
    await page.close();
  });

  it('round-trips bytes through kwChat.workspaceFiles when the configuration exposes files, and refuses otherwise', async () => {
    const page = await newPage({ key: keys.events });
    await chatFrame(page);
    const result = await page.evaluate(async () => {
      const chat = (window as any).kwChat;
      const put = await chat.workspaceFiles.putBytes({
        fileName: 'notes.txt',
        mimeType: 'text/plain',
        bytes: new TextEncoder().encode('hello from the host page'),
      });
      const read = await chat.workspaceFiles.readBytes(put.fileId);
      return { put, text: new TextDecoder().decode(read.bytes) };
    });
    expect(result.put).toMatchObject({ ok: true, fileId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(result.text).toBe('hello from the host page');
    const listed = await api(owner.token, 'GET', `/api/files/${result.put.fileId}`);
    expect(listed.status, listed.text).toBe(200);
    await page.close();

    const plain = await newPage({ key: keys.plain });
    await chatFrame(plain);
    const refused = await plain.evaluate(async () => {
      const chat = (window as any).kwChat;
      const outcomes: string[] = [];
      await chat.workspaceFiles
        .putBytes({ fileName: 'x.txt', mimeType: 'text/plain', bytes: new Uint8Array([1]) })
        .then(
          () => outcomes.push('stored'),
          (err: Error) => outcomes.push(err.message),
        );
      await chat.workspaceFiles.readBytes('00000000-0000-4000-8000-000000000000').then(
        () => outcomes.push('read'),
        (err: Error) => outcomes.push(err.message),
      );
      return outcomes;
    });
    expect(refused).toEqual([expect.stringContaining('does not share'), expect.stringContaining('does not share')]);
    // And straight at the byte proxy, the key of a configuration that does not expose files is refused.
    const direct = await fetch(`${base}/api/workspace-files/bytes?key=${keys.plain}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: host.origin, authorization: `Bearer ${jwt}` },
      body: JSON.stringify({ workspaceId: ws, fileName: 'x.txt', mimeType: 'text/plain', base64: 'AA==' }),
    });
    expect(direct.status).toBe(403);
    await plain.close();
  });

  it('keeps a stateless conversation going past the embed API’s limits, sending back the newest history', async () => {
    const page = await newPage({ key: keys.stateless });
    const frame = await chatFrame(page);
    const before = model.chatRequests().length;
    const LONG = 'x'.repeat(40_000); // over the 32,000 characters the API takes per message
    const answers = [...Array.from({ length: 52 }, (_, i) => `answer ${i}`), LONG, 'answer 53'];
    for (const [i, answer] of answers.entries()) {
      model.script({ text: answer });
      // A message typed while the previous answer is still being read is not sent.
      await frame.waitForSelector('#composer:not([aria-busy])');
      await ask(frame, `turn ${i}`);
      await answerText(frame, i);
    }
    // 54 turns: from the 51st on, the whole history would be over the API's 100 messages.
    expect(await frame.locator('.msg.status').count()).toBe(0);
    const requests = model.chatRequests().slice(before);
    expect(requests).toHaveLength(54);
    const sent = (n: number) => requests[n].messages.filter((m) => m.role !== 'system');
    expect(sent(50)).toHaveLength(99); // the newest 98 of 100 earlier messages, and the new one
    expect(sent(50).slice(-3)).toEqual([
      { role: 'user', content: 'turn 49' },
      { role: 'assistant', content: 'answer 49' },
      { role: 'user', content: 'turn 50' },
    ]);
    expect(sent(53).at(-2)).toEqual({ role: 'assistant', content: LONG.slice(0, 32_000) });
    expect(sent(53).at(-1)).toEqual({ role: 'user', content: 'turn 53' });
    await page.close();
  });

  /** The status (error) messages shown, once there are `count`, and the composer is free again. */
  async function statuses(frame: Frame, count: number): Promise<string[]> {
    await frame.waitForFunction((n) => document.querySelectorAll('.msg.status').length >= n, count);
    await frame.waitForSelector('#composer:not([aria-busy])');
    return frame.locator('.msg.status').allTextContents();
  }

  it('starts a new conversation after a first turn that failed, instead of answering "Conversation not found"', async () => {
    const page = await newPage({ key: keys.plain });
    const frame = await chatFrame(page);
    // The provider fails the first turn after the stream announced the new conversation's id.
    model.setMode('status-500', { times: 1 });
    await ask(frame, 'Is it dishwasher safe?');
    expect(await statuses(frame, 1)).toHaveLength(1);
    model.script({ text: 'No, rinse it by hand.' });
    await ask(frame, 'Is it dishwasher safe, then?');
    expect(await answerText(frame, 0)).toBe('No, rinse it by hand.');
    // The new conversation is stored and continues.
    model.script((request) => ({
      text: `You asked ${request.messages.filter((m) => m.role === 'user').length} questions.`,
    }));
    await ask(frame, 'And the lid?');
    expect(await answerText(frame, 1)).toBe('You asked 2 questions.');
    expect(await frame.locator('.msg.status').count()).toBe(1);
    await page.close();
  });

  it('starts a new conversation when the visitor types instead of answering the first turn’s question', async () => {
    const page = await newPage({ key: keys.events });
    const frame = await chatFrame(page);
    model.script({
      toolCalls: [{ name: 'ask_user', arguments: { questions: [{ question: 'Which model?', options: ['Zephyr'] }] } }],
    });
    await ask(frame, 'It hums');
    await frame.waitForSelector('.question fieldset');
    await frame.waitForSelector('#composer:not([aria-busy])');
    model.script({ text: 'Humming is normal while it heats.' });
    await ask(frame, 'It is the Zephyr, and it hums');
    expect(await answerText(frame, 0)).toBe('Humming is normal while it heats.');
    expect(await frame.locator('.msg.status').count()).toBe(0);
    await page.close();
  });

  it('gives up an answer that stops arriving (data-stall-timeout), shows an error and takes the next message', async () => {
    const page = await newPage({ key: keys.plain, stall: '3' });
    const frame = await chatFrame(page);
    // The model sends its first event, then nothing: no byte reaches the frame after `conversation`.
    model.setMode('stall-mid-stream', { times: 1 });
    await ask(frame, 'Are you there?');
    expect(await statuses(frame, 1)).toEqual(['The answer stopped arriving. Please try again.']);
    model.script({ text: 'Yes, here.' });
    await ask(frame, 'Are you there now?');
    expect(await answerText(frame, 0)).toBe('Yes, here.');
    await page.close();
  });

  it('shows an error when an answer to a question cannot be sent, and lets the visitor answer again', async () => {
    const page = await newPage({ key: keys.events });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const frame = await chatFrame(page);
    model.script({
      toolCalls: [
        {
          name: 'ask_user',
          arguments: { questions: [{ question: 'Which model?', options: ['Zephyr', 'Zephyr Mini'] }] },
        },
      ],
    });
    await ask(frame, 'It rattles');
    await frame.waitForSelector('.question fieldset');
    // The network fails for the answer: the request never reaches the platform.
    const answerRoute = '**/api/v2/embed/answer**';
    await page.route(answerRoute, (route) => route.abort('internetdisconnected'));
    await frame.locator('.question label', { hasText: 'Zephyr Mini' }).click();
    await frame.locator('.question button').click();
    expect(await statuses(frame, 1)).toEqual(['The chat could not be reached']);
    await frame.waitForSelector('.question button:not([disabled])');
    await page.unroute(answerRoute);
    model.script((request) => ({ text: `Noted: ${lastTool(request).answers[0].selected.join(',')}` }));
    await frame.locator('.question button').click();
    expect(await answerText(frame, 0)).toBe('Noted: Zephyr Mini');
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('renders model output and fragment content as text, never as HTML', async () => {
    const page = await newPage({ key: keys.plain });
    const frame = await chatFrame(page);
    model.script(
      { text: 'Look: <img src=x onerror="window.__fromModel = 1"> and [a link](javascript:alert(1))' },
      { toolCalls: [{ name: 'list_fragments', arguments: { workspaceId: ws } }] },
      (request) => ({
        text: lastTool(request)
          .fragments.map((f: { preview: string }) => f.preview)
          .join('\n'),
      }),
    );
    await ask(frame, 'Show me something odd');
    expect(await answerText(frame, 0)).toContain('<img src=x onerror="window.__fromModel = 1">');
    await ask(frame, 'And the fragment?');
    expect(await answerText(frame, 1)).toContain('<script>window.__fromFragment = 1</script>');
    const injected = await frame.evaluate(() => ({
      elements: document.querySelectorAll('#log img, #log script, #log a[href^="javascript"]').length,
      model: (window as any).__fromModel,
      fragment: (window as any).__fromFragment,
    }));
    expect(injected).toEqual({ elements: 0, model: undefined, fragment: undefined });
    await page.close();
  });

  it('takes screenshots of the open widget at desktop and phone width, in the configured theme', async () => {
    for (const [width, name] of [
      [1280, 'desktop'],
      [390, 'phone'],
    ] as const) {
      const page = await newPage({ key: keys.events, width });
      const frame = await chatFrame(page);
      model.script({ text: 'Descale it **monthly** with citric acid:\n\n- fill\n- boil\n- rinse' });
      await ask(frame, 'How often should I descale?');
      await answerText(frame, 0);
      const box = (await page.locator('iframe[data-kw-chat=frame]').boundingBox())!;
      if (name === 'phone') expect(box.width).toBe(390);
      else expect(box.width).toBeLessThanOrEqual(402); // 400 and its border
      expect(await frame.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      expect(await frame.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(22, 26, 34)');
      const file = path.join(SCREENSHOTS, `embed-widget-${name}.png`);
      await page.screenshot({ path: file });
      expect(statSync(file).size).toBeGreaterThan(5_000);
      await page.close();
    }
  });
});
