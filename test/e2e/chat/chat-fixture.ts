import { rmSync } from 'node:fs';
import OpenAI from 'openai';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { assertNoContractInternals } from '../../support/http.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { startAnthropicStandIn } from '../../support/stand-ins/anthropic-stand-in.js';
import { startOpenAiStandIn } from '../../support/stand-ins/openai-stand-in.js';
import type { StandIn } from '../../support/stand-ins/stand-in-server.js';

/** Keys the operator configures: a test asserts which one a stand-in saw. */
export const OPERATOR_OPENAI_KEY = 'sk-operator-openai-7f3a9c';
export const OPERATOR_ANTHROPIC_KEY = 'sk-ant-operator-41d2e8';

/**
 * Three providers on loopback: `standin` (OpenAI wire format: gpt-4o with vision, gpt-4o-mini
 * without, gpt-image-1), `claude` (Anthropic's Messages API) and `flaky` (OpenAI wire format,
 * no retries and a short timeout, switched into failure modes by the tests).
 */
export function providersConfig(openai: StandIn, anthropic: StandIn, flaky: StandIn) {
  return {
    providers: [
      {
        id: 'standin',
        kind: 'openai',
        baseUrl: openai.url,
        apiKey: OPERATOR_OPENAI_KEY,
        retries: 0,
        models: [
          { id: 'gpt-4o-mini', vision: false, max_output_tokens: 1000, context_length: 128000 },
          { id: 'gpt-image-1', modality: 'image', image_sizes: ['1024x1024', '256x256'] },
          { match: 'gpt-4o*', vision: true, max_output_tokens: 4096, context_length: 128000, display_name: 'GPT-4o' },
        ],
      },
      {
        id: 'claude',
        kind: 'anthropic',
        baseUrl: anthropic.url,
        apiKey: OPERATOR_ANTHROPIC_KEY,
        retries: 0,
        models: [{ match: 'claude-*', vision: true, max_output_tokens: 8192, context_length: 200000 }],
      },
      {
        id: 'flaky',
        kind: 'openai',
        baseUrl: flaky.url,
        apiKey: 'sk-flaky',
        retries: 0,
        timeoutMs: 1500,
        modelPrefix: 'flaky/',
        models: [{ match: '*', vision: true }],
      },
    ],
  };
}

/** An embedded platform with the three providers, an admin, and a user with a PAT. */
export async function startChatPlatform(env: Record<string, string> = {}) {
  const [openai, anthropic, flaky] = await Promise.all([
    startOpenAiStandIn(),
    startAnthropicStandIn(),
    startOpenAiStandIn(),
  ]);
  const admin = adminEnv();
  const dataDir = tempDir('kw-chat-');
  const platform: PlatformProcess = await startEmbedded(dataDir, {
    ...admin,
    CHAT_PROVIDERS: JSON.stringify(providersConfig(openai, anthropic, flaky)),
    ...env,
  });
  const base = platform.url;
  const person = (options: { scopes?: string[] } = {}) => userWithToken(base, admin.ADMIN_TOKEN, options);
  /** The official SDK, as a user would point it at the platform (no SDK retries: tests count requests). */
  const sdk = (token: string) =>
    new OpenAI({ baseURL: `${base}/api/v1`, apiKey: token, maxRetries: 0, timeout: 30_000 });
  return {
    platform,
    base,
    admin,
    openai,
    anthropic,
    flaky,
    person,
    sdk,
    async stop() {
      await platform.stop();
      await Promise.all([openai.close(), anthropic.close(), flaky.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON request with a bearer token; answers status and parsed body. */
export async function call(base: string, token: string | undefined, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assertNoContractInternals(text, `${method} ${path}`);
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}
