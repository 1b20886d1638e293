import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import { BearerOnly, CurrentAuth } from '@kw/platform-http';
import type { ModelGateway } from '@kw/platform-models';
import { parseChatRequest } from '../../domain/chat-request.js';
import { checkChatFitsModel } from '../../domain/model-fit.js';
import { estimateCompletionUsage, estimatePromptTokens, StreamTally } from '../../domain/usage-estimate.js';
import { assertChatAllowed } from '../chat-access.js';
import { PlanGate } from '../plan-gate.js';
import { ChatCompletionDto, ChatCompletionRequestDto } from '../dto/chat-completion.dto.js';
import { ModelCatalog } from '../models/model-catalog.js';
import { MODEL_GATEWAY } from '../models/model-gateway.provider.js';
import { ProviderKeys } from '../models/provider-keys.js';
import { UsageRecorder } from '../models/usage-recorder.js';
import { clientAbortSignal, unlessClientGone } from './client-abort.js';
import { sseStream } from './sse-stream.js';

/** A call's output, for the budget it holds while it runs, when it names no max_tokens. */
const OUTPUT_ESTIMATE_TOKENS = 500;

/**
 * POST /api/v1/chat/completions: stateless and OpenAI-compatible. The call to the provider runs
 * here, where the client is connected: a streamed answer is relayed chunk by chunk, and a client
 * that goes away cancels the upstream request.
 */
@ApiTags('OpenAI-compatible')
@BearerOnly()
@Controller('api/v1')
export class ChatCompletionsController {
  constructor(
    private readonly catalog: ModelCatalog,
    @Inject(MODEL_GATEWAY) private readonly gateway: ModelGateway,
    private readonly keys: ProviderKeys,
    private readonly usage: UsageRecorder,
    private readonly plans: PlanGate,
  ) {}

  @Post('chat/completions')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a chat completion',
    description: [
      "OpenAI-compatible. `stream: true` answers Server-Sent Events in OpenAI's chunk format, ending with `data: [DONE]`; the last chunk carries `usage`.",
      'Refused parameters (`parallel_tool_calls`, `functions`, `function_call`, `logprobs`, `seed`, `response_format`, `frequency_penalty`, `presence_penalty`, `logit_bias`) answer 400 naming the parameter.',
      '`null` for an optional field means not given, as at OpenAI.',
      'Upstream failures answer 502.',
    ].join(' '),
  })
  @ApiBody({ type: ChatCompletionRequestDto })
  @ApiOkResponse({ type: ChatCompletionDto, description: 'A completion, or an event stream when `stream` is true' })
  @ApiProduces('application/json', 'text/event-stream')
  async create(
    @Body() body: unknown,
    @CurrentAuth() auth: AuthContext,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    assertChatAllowed(auth);
    const { request: chat, stream, maxTokensParam } = parseChatRequest(body);
    const model = this.catalog.require(chat.model);
    checkChatFitsModel(chat, model, maxTokensParam);
    const prompt = estimatePromptTokens(chat.messages, chat.tools);
    // Held against the budget while the call runs (released once its usage is recorded).
    const hold = await this.plans.check(
      auth.userId,
      model.id,
      'chat',
      prompt + (chat.max_tokens ?? OUTPUT_ESTIMATE_TOKENS),
    );
    const signal = clientAbortSignal(request, reply);
    const options = { signal, credentialFor: this.keys.resolverFor(auth.userId, model.id) };
    const started = performance.now();
    const caller = requestContext.current();
    const record = (
      served: { provider: string; credential: string },
      status: 'ok' | 'upstream_error' | 'cancelled',
      usage?: { prompt_tokens: number; completion_tokens: number },
    ) => {
      this.usage.record(
        {
          credential: served.credential,
          model: model.id,
          provider: served.provider,
          kind: 'chat',
          inputTokens: usage?.prompt_tokens ?? 0,
          outputTokens: usage?.completion_tokens ?? 0,
          images: 0,
          latencyMs: Math.round(performance.now() - started),
          status,
        },
        caller,
      );
      hold.release();
    };
    const failed = { provider: model.provider, credential: 'operator' };
    if (!stream) {
      const { completion, served } = await this.gateway.complete(model, chat, options).catch((err: unknown) => {
        record(failed, signal.aborted ? 'cancelled' : 'upstream_error');
        return unlessClientGone(signal)(err);
      });
      completion.model = model.id;
      // A provider that reports no usage (some OpenAI-compatible servers): the estimate, answered and recorded.
      completion.usage ??= estimateCompletionUsage(prompt, completion.choices);
      record(served, 'ok', completion.usage);
      await reply.status(200).type('application/json; charset=utf-8').send(completion);
      return;
    }
    const { chunks, served } = await this.gateway.stream(model, chat, options).catch((err: unknown) => {
      record(failed, signal.aborted ? 'cancelled' : 'upstream_error');
      return unlessClientGone(signal)(err);
    });
    await reply
      .status(200)
      .headers({
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      })
      .send(sseStream(chunks, model.id, signal, new StreamTally(prompt), (o) => record(served, o.status, o.usage)));
  }
}
