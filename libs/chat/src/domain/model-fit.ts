import type { ChatCompletionRequest, ModelInfo } from '@kw/platform-models';
import { invalidParam } from './chat-request.js';

/**
 * Refuses what the chosen model cannot do, before a provider is called: a request the upstream
 * would reject anyway costs the caller a round trip and the operator a billed call.
 */
export function checkChatFitsModel(request: ChatCompletionRequest, model: ModelInfo): void {
  if (model.modality !== 'chat') {
    throw invalidParam('model', `"${model.id}" generates images; use /api/v1/images/generations`);
  }
  if (!model.capabilities.vision) {
    request.messages.forEach((message, i) => {
      if (!Array.isArray(message.content)) return;
      const j = message.content.findIndex((part) => part.type === 'image_url');
      if (j >= 0) throw invalidParam(`messages[${i}].content[${j}]`, `model "${model.id}" does not accept images`);
    });
  }
  const max = model.capabilities.max_output_tokens;
  if (request.max_tokens !== undefined && max > 0 && request.max_tokens > max) {
    throw invalidParam('max_tokens', `must be at most ${max} for model "${model.id}"`);
  }
}
