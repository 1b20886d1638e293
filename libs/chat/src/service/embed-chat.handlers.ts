import { Injectable } from '@nestjs/common';
import { EmbedChatService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, badRequest, notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { EMBED_HELD_TURN_MAX_BYTES, EMBED_HELD_TURN_TTL_SECONDS, EMBED_HISTORY_MESSAGES_MAX } from '../chat-limits.js';
import { EmbedConfigsRepository } from '../persistence/embed-configs.repository.js';
import { EmbedConversationsRepository } from '../persistence/embed-conversations.repository.js';
import { EmbedAdmission } from './embed-admission.js';
import { EmbedFeedback } from './embed-feedback.js';

type Req<M extends keyof typeof EmbedChatService.method> = RequestOf<typeof EmbedChatService, M>;

const conversationNotFound = () => notFound('Conversation');
const tokenNotFound = () => notFound('Resume token');

/** The user an admitted embed request runs as (the HTTP side set it after AdmitEmbedCall). */
function chattingUser(context: RequestContext): string {
  const userId = context.auth?.userId;
  if (!userId) throw new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message: 'Authentication required' });
  return userId;
}

/**
 * The embed chat's stored state: admission, conversations (per user and configuration), held
 * turns and feedback. The agent loop runs on the HTTP side and calls these.
 */
@Injectable()
export class EmbedChatHandlers {
  constructor(
    private readonly admission: EmbedAdmission,
    private readonly configs: EmbedConfigsRepository,
    private readonly conversations: EmbedConversationsRepository,
    private readonly feedback: EmbedFeedback,
  ) {}

  @Handles(EmbedChatService.method.admitEmbedCall)
  admit(input: Req<'admitEmbedCall'>) {
    return this.admission.admit(input);
  }

  @Handles(EmbedChatService.method.confirmEmbedStanding)
  async confirmStanding(input: Req<'confirmEmbedStanding'>, context: RequestContext) {
    await this.admission.confirm(input.keyId, context.auth);
    return {};
  }

  @Handles(EmbedChatService.method.getConversation)
  async getConversation(input: Req<'getConversation'>, context: RequestContext) {
    const userId = chattingUser(context);
    if (
      !isUuid(input.conversationId) ||
      !(await this.conversations.exists(input.configId, userId, input.conversationId))
    )
      throw conversationNotFound();
    const rows = await this.conversations.messages(input.conversationId, EMBED_HISTORY_MESSAGES_MAX);
    return {
      messages: rows.map((r) => ({
        id: r.id,
        messageJson: JSON.stringify(r.message),
        createdAt: r.createdAt.toISOString(),
      })),
    };
  }

  @Handles(EmbedChatService.method.appendTurn)
  async appendTurn(input: Req<'appendTurn'>, context: RequestContext) {
    const userId = chattingUser(context);
    const create = input.newConversation;
    const id = input.conversationId;
    if (!isUuid(id)) throw badRequest('conversationId must be a UUID');
    if (!create && !(await this.conversations.exists(input.configId, userId, id))) throw conversationNotFound();
    const messages = input.messages.map((m) => {
      const message = JSON.parse(m.messageJson) as { role?: unknown };
      if (!isUuid(m.id) || typeof message.role !== 'string')
        throw badRequest('A stored message needs an id and a role');
      return { id: m.id, role: message.role, message };
    });
    if (!(await this.conversations.append({ id, configId: input.configId, userId, create }, messages)))
      throw conversationNotFound();
    return { conversationId: id };
  }

  @Handles(EmbedChatService.method.holdTurn)
  async holdTurn(input: Req<'holdTurn'>, context: RequestContext) {
    const userId = chattingUser(context);
    if (Buffer.byteLength(input.stateJson) > EMBED_HELD_TURN_MAX_BYTES)
      throw badRequest('The paused turn is too large to keep');
    const ttl = Math.min(Math.max(input.ttlSeconds || EMBED_HELD_TURN_TTL_SECONDS, 1), EMBED_HELD_TURN_TTL_SECONDS);
    const expiresAt = new Date(Date.now() + ttl * 1000);
    await this.conversations.hold(
      input.tokenHash,
      { configId: input.configId, userId, state: JSON.parse(input.stateJson) },
      expiresAt,
    );
    return { expiresAt: expiresAt.toISOString() };
  }

  @Handles(EmbedChatService.method.takeHeldTurn)
  async takeHeldTurn(input: Req<'takeHeldTurn'>, context: RequestContext) {
    const userId = chattingUser(context);
    if (!isUuid(input.configId)) throw tokenNotFound();
    const state = await this.conversations.take(input.tokenHash, input.configId, userId);
    if (state === undefined) throw tokenNotFound();
    return { stateJson: JSON.stringify(state) };
  }

  @Handles(EmbedChatService.method.submitFeedback)
  async submitFeedback(input: Req<'submitFeedback'>, context: RequestContext) {
    const userId = chattingUser(context);
    const config = await this.configs.findActive(input.configId);
    if (!config) throw notFound('Embed configuration');
    return this.feedback.submit(config, userId, input);
  }
}
