import { Injectable } from '@nestjs/common';
import { FragmentsService } from '@kw/contracts';
import { AppError, ErrorCode, notFound } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';
import type { EmbedConfigRow } from '../persistence/embed-configs.repository.js';
import { EmbedConversationsRepository, type StoredMessageRow } from '../persistence/embed-conversations.repository.js';
import { asConfigCreator } from './as-config-creator.js';

/** The fragment type feedback is stored as, created in the workspace on first use. */
export const FEEDBACK_TYPE_KEY = 'embed-feedback';
const F = FragmentsService.method;
const QUOTE_MAX = 4_000;

const feedbackDisabled = () =>
  new AppError({
    status: 409,
    code: ErrorCode.FEEDBACK_DISABLED,
    message: "This embed configuration does not take feedback here (its feedbackMode is not 'fragment-feedback')",
  });

function textOf(stored: StoredMessageRow | null): string {
  const content = (stored?.message as { content?: unknown } | undefined)?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : '')).join(' ');
  return '';
}

const quote = (text: string) =>
  (text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text)
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');

/**
 * Feedback on an embed answer, in `fragment-feedback` mode: a fragment of the `embed-feedback`
 * type in the configuration's workspace, written as the configuration's creator (who turned
 * feedback on; the visitor rating an answer may only read). With stored conversations the rated
 * answer must be one of the caller's, and the fragment quotes it and the question before it.
 */
@Injectable()
export class EmbedFeedback {
  constructor(
    private readonly conversations: EmbedConversationsRepository,
    private readonly client: ServiceClient,
  ) {}

  async submit(
    config: EmbedConfigRow,
    userId: string,
    input: { messageId: string; rating: string; comment: string },
  ): Promise<{ fragmentId: string }> {
    if (config.features.feedbackMode !== 'fragment-feedback') throw feedbackDisabled();
    let answer: StoredMessageRow | null = null;
    let question: StoredMessageRow | null = null;
    if (!config.stateless) {
      answer = await this.conversations.findAnswer(config.id, userId, input.messageId);
      if (!answer) throw notFound('Message');
      question = await this.conversations.questionBefore(answer.id);
    }
    const lines = [
      `**Rating:** ${input.rating}`,
      `**Embed configuration:** ${config.name} (${config.id})`,
      `**Message:** ${input.messageId}`,
      `**User:** ${userId}`,
    ];
    if (input.comment) lines.push('', '**Comment:**', '', quote(input.comment));
    if (question) lines.push('', '**Question:**', '', quote(textOf(question)));
    if (answer) lines.push('', '**Answer:**', '', quote(textOf(answer)));
    return asConfigCreator(config, ['fragments:read', 'fragments:write'], async () => {
      const fragmentTypeId = await this.feedbackType(config.workspaceId);
      const { fragment } = await this.client.call(F.createFragment, {
        workspaceId: config.workspaceId,
        fragmentTypeId,
        title: `Feedback (${input.rating}) on an answer of ${config.name}`.slice(0, 200),
        content: lines.join('\n'),
        tagsSupplied: true,
        tags: ['embed-feedback', `rating-${input.rating}`],
        enhanceTags: false,
        createdVia: 'chat',
      });
      return { fragmentId: fragment!.id };
    });
  }

  /** The workspace's feedback type, created when missing (a concurrent creation is found again). */
  private async feedbackType(workspaceId: string): Promise<string> {
    const find = async () =>
      (await this.client.call(F.listFragmentTypes, { workspaceId })).fragmentTypes.find(
        (t) => t.key === FEEDBACK_TYPE_KEY,
      )?.id;
    const existing = await find();
    if (existing) return existing;
    try {
      const { fragmentType } = await this.client.call(F.createFragmentType, {
        workspaceId,
        key: FEEDBACK_TYPE_KEY,
        name: 'Embed feedback',
        description: 'Ratings and comments that visitors gave answers of an embedded chat',
      });
      return fragmentType!.id;
    } catch (err) {
      const again = AppError.isAppError(err) && err.status === 409 ? await find() : undefined;
      if (again) return again;
      throw err;
    }
  }
}
