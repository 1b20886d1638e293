import type { AppConfig } from '@kw/platform-config';
import type { AiProvider } from './ai-provider.js';
import { BuiltinAiProvider } from './builtin-provider.js';
import { embeddingPrompts } from './embedding-prompts.js';
import { OpenAiCompatibleProvider } from './openai-provider.js';

/** The provider the configuration names (AI_PROVIDER); the built-in one by default. */
export function createAiProvider(config: AppConfig): AiProvider {
  if (config.AI_PROVIDER === 'openai') {
    return new OpenAiCompatibleProvider({
      baseUrl: config.AI_BASE_URL ?? 'https://api.openai.com/v1',
      apiKey: config.AI_API_KEY,
      chatModel: config.AI_CHAT_MODEL,
      embeddingModel: config.AI_EMBEDDING_MODEL,
      embeddingPrompts: embeddingPrompts(config.AI_EMBEDDING_MODEL, {
        query: config.AI_EMBEDDING_QUERY_PREFIX,
        document: config.AI_EMBEDDING_DOCUMENT_PREFIX,
      }),
      timeoutMs: config.AI_TIMEOUT_MS,
    });
  }
  return new BuiltinAiProvider();
}
