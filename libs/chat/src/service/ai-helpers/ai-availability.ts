import { Inject, Injectable } from '@nestjs/common';
import { WebSearchAccessService } from '@kw/contracts';
import { AI_PROVIDER, type AiProvider } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { loadProvidersConfig, type ProviderConfig } from '@kw/platform-models';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { requireAccount } from '../chat-caller.js';
import { AiHelpers } from './ai-helpers.js';

export interface CapabilityState {
  name: string;
  available: boolean;
  provider: string;
  model: string;
  reason: string;
}

/** A probe's answer is reused this long: availability is asked often, providers change slowly. */
const PROBE_TTL_MS = 30_000;
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Which capabilities work now (docs/ai-helpers.md#availability): the AI provider of helpers and
 * enrichment, the chat providers (CHAT_PROVIDERS), images, and web search (configured, and the
 * caller's access). A provider reached over the network is probed (`GET <base>/models`, 2 s),
 * its answer kept 30 s; one that does not answer is unavailable, with the reason.
 */
@Injectable()
export class AiAvailability {
  private readonly probes = new Map<string, { at: number; problem: Promise<string> }>();
  private readonly chatProviders: ProviderConfig[];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(AI_PROVIDER) private readonly provider: AiProvider,
    private readonly helpers: AiHelpers,
    private readonly client: ServiceClient,
  ) {
    this.chatProviders = loadProvidersConfig(config, process.env).providers;
  }

  async list(context: RequestContext): Promise<CapabilityState[]> {
    requireAccount(context, 'chat:use');
    const aiProblem =
      this.provider.name === 'openai'
        ? await this.probe(this.config.AI_BASE_URL ?? 'https://api.openai.com/v1', this.config.AI_API_KEY)
        : '';
    const helper = (name: 'embedding' | 'summary' | 'tags'): CapabilityState => ({
      name,
      available: aiProblem === '',
      provider: this.provider.name,
      model: this.helpers.modelOf(name),
      reason: aiProblem,
    });
    const chat = await this.firstWorkingChatProvider();
    const imageProvider = this.chatProviders.find((p) => p.kind === 'openai');
    const imageProblem = imageProvider
      ? await this.probe(imageProvider.baseUrl, imageProvider.apiKey)
      : 'no OpenAI-compatible provider is configured';
    const webSearch = await this.webSearch();
    return [
      helper('embedding'),
      helper('summary'),
      helper('tags'),
      { name: 'chat', ...chat },
      {
        name: 'images',
        available: imageProblem === '',
        provider: imageProvider?.id ?? '',
        model: '',
        reason: imageProblem,
      },
      webSearch,
    ];
  }

  private async firstWorkingChatProvider(): Promise<Omit<CapabilityState, 'name'>> {
    if (this.chatProviders.length === 0)
      return { available: false, provider: '', model: '', reason: 'no chat provider is configured (CHAT_PROVIDERS)' };
    const problems: string[] = [];
    for (const p of this.chatProviders) {
      const problem = p.kind === 'openai' ? await this.probe(p.baseUrl, p.apiKey) : '';
      if (!problem) return { available: true, provider: p.id, model: p.models[0]?.id ?? '', reason: '' };
      problems.push(`${p.id}: ${problem}`);
    }
    return { available: false, provider: this.chatProviders[0].id, model: '', reason: problems.join('; ') };
  }

  private async webSearch(): Promise<CapabilityState> {
    const provider = this.config.WEB_SEARCH_PROVIDER ?? '';
    if (!provider)
      return {
        name: 'web_search',
        available: false,
        provider: '',
        model: '',
        reason: 'no web search provider is configured (WEB_SEARCH_PROVIDER)',
      };
    const { allowed } = await this.client.call(WebSearchAccessService.method.checkAccess, {});
    return {
      name: 'web_search',
      available: allowed,
      provider,
      model: '',
      reason: allowed ? '' : 'your account has no web-search access',
    };
  }

  /** "" when `<base>/models` answers 2xx within the timeout; the problem otherwise. */
  private probe(baseUrl: string, apiKey: string | undefined): Promise<string> {
    const cached = this.probes.get(baseUrl);
    if (cached && Date.now() - cached.at < PROBE_TTL_MS) return cached.problem;
    const problem = fetch(`${baseUrl.replace(/\/$/, '')}/models`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    }).then(
      async (res) => {
        await res.body?.cancel();
        return res.ok ? '' : `the provider answered ${res.status}`;
      },
      (err: Error) => `the provider does not answer (${err.name === 'TimeoutError' ? 'timeout' : 'unreachable'})`,
    );
    this.probes.set(baseUrl, { at: Date.now(), problem });
    return problem;
  }
}
