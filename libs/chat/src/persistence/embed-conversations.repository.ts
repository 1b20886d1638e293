import { Inject, Injectable } from '@nestjs/common';
import {
  ControlPrisma,
  PLANE_SCHEMAS,
  sqlStatements,
  sqlTransaction,
  type Database,
  type SqlExecutor,
} from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import { CHAT_DB, type ChatDb } from './chat-database.js';

export interface StoredMessageRow {
  id: string;
  role: string;
  /** The OpenAI wire message. */
  message: unknown;
  createdAt: Date;
}

export interface HeldTurnRow {
  configId: string;
  userId: string;
  state: unknown;
}

const json = (value: unknown) => value as ControlPrisma.InputJsonValue;
const heldTurnsTable = ControlPrisma.raw(`"${PLANE_SCHEMAS.control}"."embed_held_turns"`);

/**
 * Embed conversations (per user and configuration), their messages, and turns held on a
 * structured question. Every read names the user and the configuration, so nobody reaches
 * another's conversation by its id.
 */
@Injectable()
export class EmbedConversationsRepository {
  /**
   * A stored turn's reads and its write through plain `pg`: they are on every turn of a
   * configuration that stores conversations, where Prisma's calls cost several times the
   * statements' own time (decision 0008).
   */
  private readonly sql: SqlExecutor;

  constructor(
    @Inject(CHAT_DB) private readonly db: ChatDb,
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {
    this.sql = sqlStatements(() => database.pool);
  }

  async exists(configId: string, userId: string, id: string): Promise<boolean> {
    const [row] = await this.sql.$queryRaw<Array<{ found: boolean }>>`
      SELECT EXISTS (SELECT 1 FROM control.embed_conversations
                      WHERE id = ${id}::uuid AND config_id = ${configId}::uuid AND user_id = ${userId}::uuid) AS found`;
    return row.found;
  }

  /** The newest `limit` messages of the conversation, oldest first. */
  async messages(conversationId: string, limit: number): Promise<StoredMessageRow[]> {
    const rows = await this.sql.$queryRaw<StoredMessageRow[]>`
      SELECT id::text AS id, role, message, created_at AS "createdAt" FROM control.embed_messages
       WHERE conversation_id = ${conversationId}::uuid ORDER BY seq DESC LIMIT ${limit}`;
    return rows.reverse();
  }

  /**
   * Appends messages after the conversation's last one, creating the conversation when `create`
   * is set. One transaction: a turn is stored whole or not at all. False (nothing written) when
   * the conversation is gone.
   */
  async append(
    conversation: { id: string; configId: string; userId: string; create: boolean },
    messages: Array<{ id: string; role: string; message: unknown }>,
  ): Promise<boolean> {
    return sqlTransaction(this.database.pool, async (tx) => {
      if (conversation.create) {
        await tx.$executeRaw`INSERT INTO control.embed_conversations (id, config_id, user_id)
          VALUES (${conversation.id}::uuid, ${conversation.configId}::uuid, ${conversation.userId}::uuid)`;
      } else {
        // The update locks the conversation's row: two turns at once get consecutive sequence numbers.
        const touched = await tx.$executeRaw`UPDATE control.embed_conversations SET updated_at = now()
          WHERE id = ${conversation.id}::uuid`;
        if (touched === 0) return false;
      }
      await tx.$executeRaw`INSERT INTO control.embed_messages (id, conversation_id, seq, role, message)
        SELECT (m.item->>'id')::uuid, ${conversation.id}::uuid, last.seq + m.n, m.item->>'role', m.item->'message'
          FROM jsonb_array_elements(${JSON.stringify(messages)}::jsonb) WITH ORDINALITY AS m(item, n),
               (SELECT coalesce(max(seq), 0) AS seq FROM control.embed_messages WHERE conversation_id = ${conversation.id}::uuid) last`;
      return true;
    });
  }

  /** An assistant message of one of the user's conversations of the configuration. */
  findAnswer(configId: string, userId: string, messageId: string): Promise<StoredMessageRow | null> {
    return this.db.embedMessage.findFirst({
      where: { id: messageId, role: 'assistant', conversation: { configId, userId } },
      select: { id: true, role: true, message: true, createdAt: true },
    });
  }

  /** The user message that led to an answer: the last one before it. */
  async questionBefore(messageId: string): Promise<StoredMessageRow | null> {
    const answer = await this.db.embedMessage.findUnique({ where: { id: messageId } });
    if (!answer) return null;
    return this.db.embedMessage.findFirst({
      where: { conversationId: answer.conversationId, role: 'user', seq: { lt: answer.seq } },
      orderBy: { seq: 'desc' },
      select: { id: true, role: true, message: true, createdAt: true },
    });
  }

  async hold(tokenHash: string, turn: HeldTurnRow, expiresAt: Date): Promise<void> {
    // Expired turns go as new ones come: nothing else needs to sweep them.
    await this.db.embedHeldTurn.deleteMany({ where: { expiresAt: { lt: new Date() } } });
    await this.db.embedHeldTurn.create({
      data: { tokenHash, configId: turn.configId, userId: turn.userId, state: json(turn.state), expiresAt },
    });
  }

  /**
   * Deletes and returns the held turn if it is this user's, of this configuration and not
   * expired: a token works once however many callers race for it, and someone else's attempt
   * does not use it up.
   */
  async take(tokenHash: string, configId: string, userId: string): Promise<unknown> {
    const rows = await this.db.$queryRaw<Array<{ state: unknown }>>`
      DELETE FROM ${heldTurnsTable}
      WHERE token_hash = ${tokenHash} AND config_id = ${configId}::uuid AND user_id = ${userId}::uuid
        AND expires_at > now()
      RETURNING state`;
    return rows[0]?.state;
  }
}
