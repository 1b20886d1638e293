import { AnthropicProvider } from './anthropic-provider.js';
import type { ModelProvider } from './model-provider.js';
import { OpenAiCompatibleProvider } from './openai-compatible-provider.js';
import type { ProviderConfig } from './providers-config.js';

/** The adapter for a configured provider's wire format. */
export function createModelProvider(config: ProviderConfig): ModelProvider {
  switch (config.kind) {
    case 'openai':
      return new OpenAiCompatibleProvider(config);
    case 'anthropic':
      return new AnthropicProvider(config);
  }
}
