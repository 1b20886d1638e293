import type { ChatCompletionRequest, ModelInfo } from '@kw/platform-models';
import { invalidParam } from './chat-request.js';

/**
 * Refuses what the chosen model cannot do, before a provider is called: a request the upstream
 * would reject anyway costs the caller a round trip and the operator a billed call.
 * `maxTokensParam` is the field the caller set the limit with, so the error names what was sent.
 */
export function checkChatFitsModel(
  request: ChatCompletionRequest,
  model: ModelInfo,
  maxTokensParam: 'max_tokens' | 'max_completion_tokens' = 'max_tokens',
): void {
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
    throw invalidParam(maxTokensParam, `must be at most ${max} for model "${model.id}"`);
  }
}
