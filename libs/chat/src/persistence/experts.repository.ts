import { Inject, Injectable } from '@nestjs/common';
import { CHAT_DB, type ChatDb } from './chat-database.js';

export interface ExpertRow {
  id: string;
  createdBy: string;
  workspaceId: string;
  name: string;
  systemPrompt: string;
  enabledTools: string[];
  routingKeywords: string[];
  modelPreference: string;
  createdAt: Date;
  updatedAt: Date;
}

export type NewExpert = Omit<ExpertRow, 'createdAt' | 'updatedAt'>;
export type ExpertChanges = Partial<
  Pick<ExpertRow, 'name' | 'systemPrompt' | 'enabledTools' | 'routingKeywords' | 'modelPreference'>
>;

const LIVE = { archivedAt: null };

/** Custom experts, always scoped to their creator; archived ones are invisible. */
@Injectable()
export class ExpertsRepository {
  constructor(@Inject(CHAT_DB) private readonly db: ChatDb) {}

  async page(
    createdBy: string,
    workspaceId: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ rows: ExpertRow[]; total: number }> {
    const where = { createdBy, ...LIVE, ...(workspaceId ? { workspaceId } : {}) };
    const [rows, total] = await Promise.all([
      this.db.chatExpert.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: limit, skip: offset }),
      this.db.chatExpert.count({ where }),
    ]);
    return { rows, total };
  }

  findOwned(createdBy: string, id: string): Promise<ExpertRow | null> {
    return this.db.chatExpert.findFirst({ where: { id, createdBy, ...LIVE } });
  }

  /** The creator's live experts over a workspace, oldest first (the embed chat's routing candidates). */
  ofWorkspace(createdBy: string, workspaceId: string, limit: number): Promise<ExpertRow[]> {
    return this.db.chatExpert.findMany({
      where: { createdBy, workspaceId, ...LIVE },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
    });
  }

  insert(expert: NewExpert): Promise<ExpertRow> {
    return this.db.chatExpert.create({ data: expert });
  }

  async update(createdBy: string, id: string, changes: ExpertChanges): Promise<ExpertRow | null> {
    const { count } = await this.db.chatExpert.updateMany({
      where: { id, createdBy, ...LIVE },
      data: { ...changes, updatedAt: new Date() },
    });
    return count === 0 ? null : this.findOwned(createdBy, id);
  }

  async archive(createdBy: string, id: string): Promise<boolean> {
    const { count } = await this.db.chatExpert.updateMany({
      where: { id, createdBy, ...LIVE },
      data: { archivedAt: new Date() },
    });
    return count > 0;
  }
}
