import { Inject, Injectable } from '@nestjs/common';
import { CHAT_DB, type ChatDb } from './chat-database.js';

/** Which accounts an administrator granted web search (besides their plan's entitlement). */
@Injectable()
export class WebSearchGrantsRepository {
  constructor(@Inject(CHAT_DB) private readonly db: ChatDb) {}

  async has(userId: string): Promise<boolean> {
    return (await this.db.webSearchGrant.count({ where: { userId } })) > 0;
  }

  async grant(userId: string, grantedBy: string): Promise<void> {
    await this.db.webSearchGrant.upsert({ where: { userId }, create: { userId, grantedBy }, update: {} });
  }

  async revoke(userId: string): Promise<void> {
    await this.db.webSearchGrant.deleteMany({ where: { userId } });
  }
}
