import { Inject, Injectable } from '@nestjs/common';
import type { Database } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { CHAT_DB, type ChatDb } from './chat-database.js';
import { withinReach, type Reach } from './reach.js';

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

/**
 * Custom experts, always scoped to their creator and, for a caller, to the workspaces their
 * credential reaches; archived ones are invisible.
 */
@Injectable()
export class ExpertsRepository {
  constructor(
    @Inject(CHAT_DB) private readonly db: ChatDb,
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  async page(
    createdBy: string,
    filter: { workspaceId?: string; reach: Reach },
    limit: number,
    offset: number,
  ): Promise<{ rows: ExpertRow[]; total: number }> {
    const where = {
      createdBy,
      ...LIVE,
      AND: [withinReach(filter.reach), filter.workspaceId ? { workspaceId: filter.workspaceId } : {}],
    };
    const [rows, total] = await Promise.all([
      this.db.chatExpert.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: limit, skip: offset }),
      this.db.chatExpert.count({ where }),
    ]);
    return { rows, total };
  }

  findOwned(createdBy: string, id: string, reach: Reach): Promise<ExpertRow | null> {
    return this.db.chatExpert.findFirst({ where: { id, createdBy, ...LIVE, ...withinReach(reach) } });
  }

  /**
   * The creator's live experts over a workspace, oldest first: the embed chat's routing
   * candidates, asked on every embed turn, so a plain statement (decision 0008).
   */
  async ofWorkspace(createdBy: string, workspaceId: string, limit: number): Promise<ExpertRow[]> {
    const { rows } = await this.database.pool.query<ExpertRow>(
      `SELECT id::text AS id, created_by::text AS "createdBy", workspace_id::text AS "workspaceId", name,
              system_prompt AS "systemPrompt", enabled_tools AS "enabledTools", routing_keywords AS "routingKeywords",
              model_preference AS "modelPreference", created_at AS "createdAt", updated_at AS "updatedAt"
         FROM control.chat_experts
        WHERE created_by = $1 AND workspace_id = $2 AND archived_at IS NULL
        ORDER BY created_at, id LIMIT $3`,
      [createdBy, workspaceId, limit],
    );
    return rows;
  }

  insert(expert: NewExpert): Promise<ExpertRow> {
    return this.db.chatExpert.create({ data: expert });
  }

  async update(createdBy: string, id: string, reach: Reach, changes: ExpertChanges): Promise<ExpertRow | null> {
    const { count } = await this.db.chatExpert.updateMany({
      where: { id, createdBy, ...LIVE, ...withinReach(reach) },
      data: { ...changes, updatedAt: new Date() },
    });
    return count === 0 ? null : this.findOwned(createdBy, id, reach);
  }

  async archive(createdBy: string, id: string, reach: Reach): Promise<boolean> {
    const { count } = await this.db.chatExpert.updateMany({
      where: { id, createdBy, ...LIVE, ...withinReach(reach) },
      data: { archivedAt: new Date() },
    });
    return count > 0;
  }
}
