import { Inject, Injectable } from '@nestjs/common';
import { ControlPrisma, PLANE_SCHEMAS } from '@kw/platform-persistence';
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
const conversationsTable = ControlPrisma.raw(`"${PLANE_SCHEMAS.control}"."embed_conversations"`);
const heldTurnsTable = ControlPrisma.raw(`"${PLANE_SCHEMAS.control}"."embed_held_turns"`);

/**
 * Embed conversations (per user and configuration), their messages, and turns held on a
 * structured question. Every read names the user and the configuration, so nobody reaches
 * another's conversation by its id.
 */
@Injectable()
export class EmbedConversationsRepository {
  constructor(@Inject(CHAT_DB) private readonly db: ChatDb) {}

  async exists(configId: string, userId: string, id: string): Promise<boolean> {
    return (await this.db.embedConversation.count({ where: { id, configId, userId } })) > 0;
  }

  /** The newest `limit` messages of the conversation, oldest first. */
  async messages(conversationId: string, limit: number): Promise<StoredMessageRow[]> {
    const rows = await this.db.embedMessage.findMany({
      where: { conversationId },
      orderBy: { seq: 'desc' },
      take: limit,
      select: { id: true, role: true, message: true, createdAt: true },
    });
    return rows.reverse();
  }

  /**
   * Appends messages after the conversation's last one, creating the conversation when `create`
   * is set. One transaction: a turn is stored whole or not at all.
   */
  async append(
    conversation: { id: string; configId: string; userId: string; create: boolean },
    messages: Array<{ id: string; role: string; message: unknown }>,
  ): Promise<void> {
    await this.db.$transaction(async (tx) => {
      if (conversation.create) {
        await tx.embedConversation.create({
          data: { id: conversation.id, configId: conversation.configId, userId: conversation.userId },
        });
      } else {
        // Locks the conversation's row: two turns at once get consecutive sequence numbers.
        await tx.$queryRaw`SELECT id FROM ${conversationsTable} WHERE id = ${conversation.id}::uuid FOR UPDATE`;
        await tx.embedConversation.update({ where: { id: conversation.id }, data: { updatedAt: new Date() } });
      }
      const last = await tx.embedMessage.aggregate({
        where: { conversationId: conversation.id },
        _max: { seq: true },
      });
      const first = (last._max.seq ?? 0) + 1;
      await tx.embedMessage.createMany({
        data: messages.map((m, i) => ({
          id: m.id,
          conversationId: conversation.id,
          seq: first + i,
          role: m.role,
          message: json(m.message),
        })),
      });
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
