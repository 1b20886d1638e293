import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Body, Controller, HttpCode, Options, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EmbedChatService, type AdmitEmbedCallResponse } from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField, notFound } from '@kw/platform-errors';
import { Public } from '@kw/platform-http';
import type { ChatMessage, ModelInfo } from '@kw/platform-models';
import { ServiceClient } from '@kw/platform-transport';
import {
  EMBED_AGENT_OUTPUT_TOKENS_PER_CALL,
  EMBED_AGENT_TURN_MS,
  EMBED_HELD_TURN_TTL_SECONDS,
} from '../../chat-limits.js';
import { modelFor, routeTurn, toolsFor } from '../../domain/embed-agent-plan.js';
import { embedInstructions } from '../../domain/embed-instructions.js';
import { askedQuestions, checkAnswers } from '../../domain/structured-answers.js';
import { estimatePromptTokens } from '../../domain/usage-estimate.js';
import { clientAbortSignal } from '../completions/client-abort.js';
import {
  EmbedChatRequestDto,
  EmbedFeedbackRequestDto,
  EmbedFeedbackResponseDto,
  EmbedResumeRequestDto,
} from '../dto/embed-chat.dto.js';
import { ModelCatalog } from '../models/model-catalog.js';
import { PlanGate } from '../plan-gate.js';
import type { Hold } from '../uncounted-usage.js';
import { ContextItems } from './context-items.js';
import { EmbedAgent, type TurnEnv, type TurnState } from './embed-agent.js';
import { openEventStream, type EventSink } from './embed-events.js';
import { admittedEmbed, EMBED_SESSION_HEADER, EmbedKeyGuard } from './embed-key.guard.js';

const RESUME_TOKEN_PREFIX = 'kwrt_';
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

const EVENTS = [
  'Server-Sent Events, each `event:` with one JSON `data:` line: `conversation`, `delta` ({text}), `tool` ({id, name, status}),',
  '`question` ({resumeToken, expiresAt, questions}: the turn pauses), `done` ({messageId, conversationId, finishReason, usage})',
  'or `error` ({error:{code, message}}).',
].join(' ');

/** What a turn holds of the budget while it runs: its first model call, estimated. */
const turnEstimate = (messages: ReadonlyArray<Pick<ChatMessage, 'content'>>) =>
  estimatePromptTokens(messages) + EMBED_AGENT_OUTPUT_TOKENS_PER_CALL;

const modelLocked = (model: string) =>
  new AppError({
    status: 400,
    code: ErrorCode.MODEL_LOCKED,
    message: `This embed configuration always uses its own model${model ? ` (${model})` : ''}; leave "model" out`,
    param: 'model',
  });

/**
 * The embed chat (docs/chat.md#embed-chat): authenticated by an embed key in the `key` query
 * parameter (EmbedKeyGuard), the user by the host page's JWT or the key's scoped token. A turn
 * streams Server-Sent Events while the agent loop runs, and ends answered or paused on a
 * structured question.
 */
@ApiTags('Embed chat')
@ApiSecurity('embedKey')
@Public()
@UseGuards(EmbedKeyGuard)
@Controller('api/v2/embed')
export class EmbedChatController {
  constructor(
    private readonly client: ServiceClient,
    private readonly catalog: ModelCatalog,
    private readonly contextItems: ContextItems,
    private readonly agent: EmbedAgent,
    private readonly plans: PlanGate,
  ) {}

  @Options(['chat', 'answer', 'feedback'])
  @HttpCode(204)
  @ApiOperation({
    summary: 'CORS preflight of the embed routes',
    description: "Answered for the key's allowed origins only (any origin for a public key); 403 otherwise.",
  })
  @ApiNoContentResponse({ description: 'The origin may call the route' })
  preflight(@Res({ passthrough: true }) reply: FastifyReply): void {
    void reply.headers({
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '600',
    });
  }

  @Post('chat')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Chat with the embedded assistant',
    description: `Applies the configuration (model, tools, system prompt, default context, main and routed experts). ${EVENTS} Stateless configurations answer the \`${EMBED_SESSION_HEADER}\` header.`,
  })
  @ApiBody({ type: EmbedChatRequestDto })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'The event stream of the turn' })
  async chat(
    @Body() body: EmbedChatRequestDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const admitted = admittedEmbed(request);
    const config = admitted.config!;
    if (body.model && config.modelLocked && body.model !== config.model) throw modelLocked(config.model);
    const last = body.messages[body.messages.length - 1];
    if (last.role !== 'user') throw invalidField('messages', "the last message must be the user's");

    const { expert, routed } = routeTurn(last.content, admitted.mainExpert, admitted.routedExperts);
    const model = this.modelOf(modelFor(body.model, expert, config));
    // The visitor's turns are their usage (kind chat): their plan's models and budget apply.
    const caller = requestContext.current()!.auth!;
    // Held against the budget until the turn ends (its calls' usage is recorded as they end).
    const hold = await this.plans.check(caller.userId, model.id, 'chat', turnEstimate(body.messages));
    try {
      await this.startTurn(body, admitted, model, expert, routed, request, reply);
    } finally {
      hold.release();
    }
  }

  private async startTurn(
    body: EmbedChatRequestDto,
    admitted: AdmitEmbedCallResponse,
    model: ModelInfo,
    expert: ReturnType<typeof routeTurn>['expert'],
    routed: boolean,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const config = admitted.config!;
    const caller = requestContext.current()!.auth!;
    const features = config.features ?? { structuredQuestions: false, webSearch: false };
    const toolIds = toolsFor(expert, features, caller.scopes);
    let conversationId = body.conversationId ?? randomUUID();
    const newConversation = !config.stateless && !body.conversationId;
    const history: ChatMessage[] = [];
    if (!config.stateless && body.conversationId) {
      const stored = await this.client.call(EmbedChatService.method.getConversation, {
        configId: config.id,
        conversationId: body.conversationId,
      });
      history.push(...stored.messages.map((m) => JSON.parse(m.messageJson) as ChatMessage));
      // The newest messages only: a tool result cut off from the call before it would be refused.
      while (history[0]?.role === 'tool') history.shift();
      conversationId = body.conversationId;
    }
    const contextBlocks = await this.contextItems.read(
      config.workspaceId,
      body.contextItems ?? [],
      config.defaultContext,
    );
    const system: ChatMessage = {
      role: 'system',
      content: embedInstructions({
        workspaceId: config.workspaceId,
        workspaceName: admitted.workspaceName,
        configPrompt: config.systemPrompt,
        expert,
        toolIds,
        contextBlocks,
      }),
    };
    const turn: ChatMessage[] = body.messages.map((m) => ({
      role: m.role as 'user' | 'assistant',
      content: m.content,
    }));
    const state: TurnState = {
      conversationId,
      newConversation,
      model: model.id,
      toolIds,
      expertId: expert?.id ?? '',
      messages: [system, ...history, ...turn],
      turnStart: 1 + history.length,
      messageIds: turn.map(() => randomUUID()),
      steps: 0,
      inputTokens: 0,
      outputTokens: 0,
      pendingCallId: '',
    };
    const sink = openEventStream(reply, config.stateless ? { [EMBED_SESSION_HEADER]: conversationId } : {});
    sink.send({
      event: 'conversation',
      data: {
        conversationId,
        stateless: config.stateless,
        ...(expert ? { expert: { id: expert.id, name: expert.name, routed } } : {}),
      },
    });
    await this.runTurn(state, admitted, model, request, reply, sink);
  }

  @Post('answer')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Answer a structured question and resume the turn',
    description: [
      `The \`resumeToken\` of a \`question\` event works once, for ${EMBED_HELD_TURN_TTL_SECONDS / 60} minutes, for the same user and configuration (otherwise 404).`,
      'Answers must fit the questions: selections among the options (unless `allowOther`), one unless `multiple`,',
      '`other` only where allowed (400 otherwise, and the token still works).',
      EVENTS,
    ].join(' '),
  })
  @ApiBody({ type: EmbedResumeRequestDto })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'The event stream of the resumed turn' })
  async answer(
    @Body() body: EmbedResumeRequestDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const admitted = admittedEmbed(request);
    const config = admitted.config!;
    if (!body.resumeToken.startsWith(RESUME_TOKEN_PREFIX)) throw notFound('Resume token');
    const held = await this.client.call(EmbedChatService.method.takeHeldTurn, {
      tokenHash: hashOf(body.resumeToken),
      configId: config.id,
    });
    const state = JSON.parse(held.stateJson) as TurnState;
    const asked = askedQuestions(state.messages, state.pendingCallId);
    const model = this.modelOf(state.model);
    let hold: Hold;
    try {
      if (asked.length > 0) checkAnswers(asked, body.answers);
      // Resuming calls the model again: the visitor's plan applies as on /chat (budget, model).
      hold = await this.plans.check(
        requestContext.current()!.auth!.userId,
        model.id,
        'chat',
        turnEstimate(state.messages),
      );
    } catch (err) {
      // Taking the turn used the token up: hold it again, so the visitor can answer properly
      // (or once their budget allows it again).
      await this.client.call(EmbedChatService.method.holdTurn, {
        tokenHash: hashOf(body.resumeToken),
        configId: config.id,
        stateJson: held.stateJson,
        ttlSeconds: EMBED_HELD_TURN_TTL_SECONDS,
      });
      throw err;
    }
    const answers = body.answers.map((a) => ({
      question: a.question,
      selected: a.selected,
      ...(a.other ? { other: a.other } : {}),
    }));
    state.messages.push({ role: 'tool', tool_call_id: state.pendingCallId, content: JSON.stringify({ answers }) });
    state.messageIds.push(randomUUID());
    state.pendingCallId = '';
    const sink = openEventStream(reply, config.stateless ? { [EMBED_SESSION_HEADER]: state.conversationId } : {});
    sink.send({ event: 'conversation', data: { conversationId: state.conversationId, stateless: config.stateless } });
    try {
      await this.runTurn(state, admitted, model, request, reply, sink);
    } finally {
      hold.release();
    }
  }

  @Post('feedback')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Rate an answer',
    description: [
      "Stored as a fragment of the `embed-feedback` type in the configuration's workspace, in `fragment-feedback` mode only",
      '(409 FEEDBACK_DISABLED otherwise; in `host-event` mode the widget hands feedback to the host page).',
      "With stored conversations the message must be an answer of the caller's (404 otherwise).",
    ].join(' '),
  })
  @ApiBody({ type: EmbedFeedbackRequestDto })
  @ApiCreatedResponse({ type: EmbedFeedbackResponseDto })
  async feedback(
    @Body() body: EmbedFeedbackRequestDto,
    @Req() request: FastifyRequest,
  ): Promise<EmbedFeedbackResponseDto> {
    const config = admittedEmbed(request).config!;
    if (body.embedConfigId !== config.id) throw notFound('Embed configuration');
    const { fragmentId } = await this.client.call(EmbedChatService.method.submitFeedback, {
      configId: config.id,
      messageId: body.messageId,
      rating: body.rating,
      comment: body.comment ?? '',
    });
    return { fragmentId };
  }

  /** The model by id, or the deployment's first chat model for ''. */
  private modelOf(id: string): ModelInfo {
    if (id) return this.catalog.require(id);
    const first = this.catalog.list().find((m) => m.modality === 'chat');
    if (!first) throw this.catalog.require('');
    return first;
  }

  /** Runs the loop and ends the stream: stored and `done`, or held and `question`, or `error`. */
  private async runTurn(
    state: TurnState,
    admitted: AdmitEmbedCallResponse,
    model: ModelInfo,
    request: FastifyRequest,
    reply: FastifyReply,
    sink: EventSink,
  ): Promise<void> {
    const config = admitted.config!;
    const clientGone = clientAbortSignal(request, reply);
    const env: TurnEnv = {
      model,
      context: requestContext.current()!,
      signal: AbortSignal.any([clientGone, AbortSignal.timeout(EMBED_AGENT_TURN_MS)]),
      newId: randomUUID,
      confirmStanding: async () => {
        await this.client.call(EmbedChatService.method.confirmEmbedStanding, { keyId: admitted.keyId });
      },
    };
    try {
      const outcome = await this.agent.run(state, env, sink);
      if (outcome.kind === 'paused') {
        state.pendingCallId = outcome.callId;
        const resumeToken = `${RESUME_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
        const { expiresAt } = await this.client.call(EmbedChatService.method.holdTurn, {
          tokenHash: hashOf(resumeToken),
          configId: config.id,
          stateJson: JSON.stringify(state),
          ttlSeconds: EMBED_HELD_TURN_TTL_SECONDS,
        });
        sink.send({ event: 'question', data: { resumeToken, expiresAt, questions: outcome.questions } });
        return;
      }
      if (!config.stateless) {
        await this.client.call(EmbedChatService.method.appendTurn, {
          configId: config.id,
          conversationId: state.conversationId,
          newConversation: state.newConversation,
          messages: state.messages.slice(state.turnStart).map((message, i) => ({
            id: state.messageIds[i],
            messageJson: JSON.stringify(message),
          })),
        });
      }
      sink.send({
        event: 'done',
        data: {
          messageId: outcome.messageId,
          conversationId: state.conversationId,
          finishReason: outcome.finishReason,
          usage: { inputTokens: state.inputTokens, outputTokens: state.outputTokens, modelCalls: state.steps },
        },
      });
    } catch (err) {
      if (!clientGone.aborted) sink.send({ event: 'error', data: { error: errorOf(err, env.signal) } });
    } finally {
      sink.end();
    }
  }
}

function errorOf(err: unknown, signal: AbortSignal): { code: string; message: string } {
  if (signal.aborted)
    return { code: 'TURN_TIMEOUT', message: `The answer took longer than ${EMBED_AGENT_TURN_MS / 1000} s` };
  if (AppError.isAppError(err) && err.status < 500) return { code: err.code, message: err.message };
  if (AppError.isAppError(err) && err.code === ErrorCode.UPSTREAM_ERROR)
    return { code: err.code, message: err.message };
  return { code: ErrorCode.INTERNAL_ERROR, message: 'The answer failed' };
}
