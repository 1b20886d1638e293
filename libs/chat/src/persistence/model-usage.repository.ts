import { Inject, Injectable } from '@nestjs/common';
import { CHAT_DB, type ChatDb } from './chat-database.js';

export interface ModelUsageRow {
  userId: string;
  tokenId: string;
  credential: string;
  model: string;
  provider: string;
  kind: string;
  inputTokens: number;
  outputTokens: number;
  images: number;
  latencyMs: number;
  status: string;
}

/** One row per model call of the OpenAI-compatible API; `/api/ai/usage` will read them. */
@Injectable()
export class ModelUsageRepository {
  constructor(@Inject(CHAT_DB) private readonly db: ChatDb) {}

  async insertMany(rows: ModelUsageRow[]): Promise<void> {
    if (rows.length > 0) await this.db.modelUsage.createMany({ data: rows });
  }

  recentOf(userId: string, limit: number) {
    return this.db.modelUsage.findMany({ where: { userId }, orderBy: { at: 'desc' }, take: limit });
  }
}
