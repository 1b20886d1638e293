import { Injectable } from '@nestjs/common';
import { ModelUsageService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { ModelUsageRepository } from '../persistence/model-usage.repository.js';
import { requireAccount } from './chat-caller.js';
import { isUuid } from '@kw/platform-ids';

/** Records the caller's model calls, as the HTTP edge reports them after each call. */
@Injectable()
export class ModelUsageHandlers {
  constructor(private readonly usage: ModelUsageRepository) {}

  @Handles(ModelUsageService.method.recordUsage)
  async record(input: RequestOf<typeof ModelUsageService, 'recordUsage'>, context: RequestContext) {
    const { userId, tokenId } = requireAccount(context, 'chat:use');
    await this.usage.insertMany(
      input.records.slice(0, 100).map((r) => ({
        userId,
        tokenId,
        credential: r.credential.slice(0, 100),
        model: r.model.slice(0, 256),
        provider: r.provider.slice(0, 100),
        kind: r.kind === 'image' || r.kind === 'web_search' ? r.kind : 'chat',
        inputTokens: Math.max(0, r.inputTokens),
        outputTokens: Math.max(0, r.outputTokens),
        images: Math.max(0, r.images),
        searches: Math.max(0, r.searches),
        embeddings: Math.max(0, r.embeddings),
        workspaceId: isUuid(r.workspaceId) ? r.workspaceId : null,
        latencyMs: Math.max(0, r.latencyMs),
        status: r.status.slice(0, 40),
      })),
    );
    return {};
  }
}
