import { Inject, Injectable } from '@nestjs/common';
import * as z from 'zod/v4';
import { WebSearchAccessService } from '@kw/contracts';
import { findAgentTool, toolJsonSchema, type AgentTool } from '@kw/platform-agent-tools';
import { requestContext, type RequestContext } from '@kw/platform-context';
import { AppError } from '@kw/platform-errors';
import type { ChatMessage, ModelGateway, ModelInfo, ToolCall, ToolDefinition } from '@kw/platform-models';
import { ServiceClient } from '@kw/platform-transport';
import type { WebSearchProvider } from '@kw/platform-web-search';
import {
  EMBED_AGENT_OUTPUT_TOKENS_PER_CALL,
  EMBED_AGENT_STEPS_MAX,
  EMBED_AGENT_TOKENS_PER_TURN,
  EMBED_TOOL_RESULT_MAX_CHARS,
} from '../../chat-limits.js';
import { estimatePromptTokens, StreamTally } from '../../domain/usage-estimate.js';
import { MODEL_GATEWAY } from '../models/model-gateway.provider.js';
import { UsageRecorder } from '../models/usage-recorder.js';
import { WEB_SEARCH_PROVIDER } from '../web-search.provider.js';
import type { EventSink } from './embed-events.js';

/** Everything a turn needs to go on, kept as JSON while it waits for a structured answer. */
export interface TurnState {
  conversationId: string;
  /** The stored conversation does not exist yet: this turn creates it. */
  newConversation: boolean;
  model: string;
  toolIds: string[];
  expertId: string;
  /** The whole prompt so far, the system message first. */
  messages: ChatMessage[];
  /** Where this turn's own messages begin in `messages` (what is stored when it ends). */
  turnStart: number;
  /** Their ids, in the same order (the turn's messages from turnStart on). */
  messageIds: string[];
  steps: number;
  inputTokens: number;
  outputTokens: number;
  /** The `ask_user` call the turn waits on ("" while running). */
  pendingCallId: string;
}

export type TurnOutcome =
  | { kind: 'answered'; messageId: string; finishReason: string }
  | { kind: 'paused'; callId: string; questions: unknown[] };

export interface TurnEnv {
  model: ModelInfo;
  /** The caller's request context, for tool calls and usage records. */
  context: RequestContext;
  signal: AbortSignal;
  newId: () => string;
  /**
   * Throws when the turn may no longer act (the key revoked, the configuration's creator or the
   * JWT's user no longer standing): asked before each tool call, and the turn ends with its error.
   */
  confirmStanding: () => Promise<void>;
}

const ASK_USER = 'ask_user';
const WEB_SEARCH = 'web_search';

function clip(text: string): string {
  return text.length > EMBED_TOOL_RESULT_MAX_CHARS ? `${text.slice(0, EMBED_TOOL_RESULT_MAX_CHARS)}…` : text;
}

function toolError(err: unknown): { code: string; message: string } {
  if (AppError.isAppError(err)) return { code: err.code, message: err.message };
  return { code: 'TOOL_FAILED', message: 'The tool failed' };
}

/**
 * The embed chat's agent loop: calls the model with the turn's tools, streams its text, runs
 * the tools it asks for as the chatting user (the same registry and authorization as MCP), and
 * goes on until the model answers without tools. Bounded: at most EMBED_AGENT_STEPS_MAX model
 * calls and EMBED_AGENT_TOKENS_PER_TURN tokens (then one last call without tools), and the
 * caller's signal (client gone or the turn's time limit). Every model call is recorded in usage.
 * `ask_user` pauses the turn: the other calls of the same step run first.
 */
@Injectable()
export class EmbedAgent {
  constructor(
    @Inject(MODEL_GATEWAY) private readonly gateway: ModelGateway,
    private readonly usage: UsageRecorder,
    private readonly client: ServiceClient,
    @Inject(WEB_SEARCH_PROVIDER) private readonly webSearch: WebSearchProvider | null,
  ) {}

  async run(state: TurnState, env: TurnEnv, sink: EventSink): Promise<TurnOutcome> {
    const tools = state.toolIds.map((id) => findAgentTool(id)).filter((t): t is AgentTool => t !== undefined);
    const definitions: ToolDefinition[] = tools.map((t) => ({
      type: 'function',
      function: { name: t.id, description: t.description, parameters: toolJsonSchema(t) },
    }));
    for (;;) {
      const lastCall =
        state.steps >= EMBED_AGENT_STEPS_MAX - 1 ||
        state.inputTokens + state.outputTokens >= EMBED_AGENT_TOKENS_PER_TURN ||
        definitions.length === 0;
      const step = await this.callModel(state, env, sink, definitions, lastCall);
      const assistant: ChatMessage = { role: 'assistant', content: step.text || null };
      if (step.calls.length > 0 && !lastCall) assistant.tool_calls = step.calls;
      this.push(state, env, assistant);
      if (!assistant.tool_calls) {
        return {
          kind: 'answered',
          messageId: state.messageIds[state.messageIds.length - 1],
          finishReason: step.finish,
        };
      }
      let question: ToolCall | undefined;
      for (const call of assistant.tool_calls) {
        if (call.function.name === ASK_USER && state.toolIds.includes(ASK_USER) && !question) {
          question = call;
          continue;
        }
        const content = await this.runTool(call, tools, env, sink);
        this.push(state, env, { role: 'tool', tool_call_id: call.id, content });
      }
      if (question) {
        const args = this.parseArgs(question, findAgentTool(ASK_USER)!);
        if ('questions' in args) return { kind: 'paused', callId: question.id, questions: args.questions as unknown[] };
        this.push(state, env, { role: 'tool', tool_call_id: question.id, content: JSON.stringify(args) });
      }
    }
  }

  /** Appends one message of this turn, with its id. */
  push(state: TurnState, env: TurnEnv, message: ChatMessage): void {
    state.messages.push(message);
    state.messageIds.push(env.newId());
  }

  private async callModel(
    state: TurnState,
    env: TurnEnv,
    sink: EventSink,
    tools: ToolDefinition[],
    lastCall: boolean,
  ): Promise<{ text: string; calls: ToolCall[]; finish: string }> {
    const started = performance.now();
    const maxTokens = Math.min(
      EMBED_AGENT_OUTPUT_TOKENS_PER_CALL,
      env.model.capabilities.max_output_tokens || Infinity,
    );
    const request = {
      model: env.model.id,
      messages: state.messages,
      stream: true,
      max_tokens: maxTokens,
      ...(tools.length > 0 ? { tools, tool_choice: lastCall ? ('none' as const) : ('auto' as const) } : {}),
    };
    const record = (
      provider: string,
      credential: string,
      status: 'ok' | 'upstream_error' | 'cancelled',
      input = 0,
      output = 0,
    ) =>
      this.usage.record(
        {
          credential,
          model: env.model.id,
          provider,
          kind: 'chat',
          inputTokens: input,
          outputTokens: output,
          images: 0,
          latencyMs: Math.round(performance.now() - started),
          status,
        },
        env.context,
      );
    let streamed: Awaited<ReturnType<ModelGateway['stream']>>;
    try {
      streamed = await this.gateway.stream(env.model, request, { signal: env.signal });
    } catch (err) {
      record(env.model.provider, 'operator', env.signal.aborted ? 'cancelled' : 'upstream_error');
      throw err;
    }
    const { chunks, served } = streamed;
    let text = '';
    let finish = 'stop';
    const calls: ToolCall[] = [];
    // The provider's usage arrives with the last chunk: a call cut or abandoned before it is
    // recorded with an estimate of what it cost, not as free.
    const tally = new StreamTally(estimatePromptTokens(request.messages, tools));
    try {
      for await (const chunk of chunks) {
        tally.observe(chunk);
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.finish_reason) finish = choice.finish_reason;
        const delta = choice.delta;
        if (delta.content) {
          text += delta.content;
          sink.send({ event: 'delta', data: { text: delta.content } });
        }
        for (const part of delta.tool_calls ?? []) {
          const call = (calls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
          if (part.id) call.id = part.id;
          if (part.function?.name) call.function.name += part.function.name;
          if (part.function?.arguments) call.function.arguments += part.function.arguments;
        }
      }
    } catch (err) {
      const spent = tally.usage();
      record(
        served.provider,
        served.credential,
        env.signal.aborted ? 'cancelled' : 'upstream_error',
        spent.prompt_tokens,
        spent.completion_tokens,
      );
      throw err;
    }
    const usage = tally.usage();
    state.steps++;
    state.inputTokens += usage.prompt_tokens;
    state.outputTokens += usage.completion_tokens;
    record(served.provider, served.credential, 'ok', usage.prompt_tokens, usage.completion_tokens);
    const named = calls.filter(Boolean).map((c, i) => ({ ...c, id: c.id || `call_${state.steps}_${i}` }));
    return { text, calls: named, finish: lastCall && finish === 'tool_calls' ? 'length' : finish };
  }

  private parseArgs(call: ToolCall, tool: AgentTool): Record<string, unknown> {
    let raw: unknown;
    try {
      raw = call.function.arguments.trim() ? JSON.parse(call.function.arguments) : {};
    } catch {
      return { error: { code: 'INVALID_ARGUMENTS', message: 'The arguments are not JSON' } };
    }
    const parsed = z.object(tool.inputSchema).safeParse(raw);
    if (!parsed.success) {
      return { error: { code: 'INVALID_ARGUMENTS', message: z.prettifyError(parsed.error).slice(0, 2_000) } };
    }
    return parsed.data;
  }

  /** Runs one call as the chatting user; the model reads the result or the error as JSON. */
  private async runTool(call: ToolCall, tools: AgentTool[], env: TurnEnv, sink: EventSink): Promise<string> {
    const name = call.function.name;
    const tool = tools.find((t) => t.id === name);
    sink.send({ event: 'tool', data: { id: call.id, name, status: 'started' } });
    let result: Record<string, unknown>;
    if (!tool) {
      result = { error: { code: 'UNKNOWN_TOOL', message: `No tool "${name}" is available here` } };
    } else {
      const args = this.parseArgs(call, tool);
      if ('error' in args && Object.keys(args).length === 1) result = args;
      else {
        // Not a tool failure for the model to read: the turn stops here.
        await requestContext.run(env.context, env.confirmStanding);
        try {
          result = await requestContext.run(env.context, () =>
            tool.id === WEB_SEARCH ? this.searchWeb(args, env.signal) : tool.run(args, this.client),
          );
        } catch (err) {
          result = { error: toolError(err) };
        }
      }
    }
    const failed = 'error' in result && Object.keys(result).length === 1;
    sink.send({
      event: 'tool',
      data: {
        id: call.id,
        name,
        status: failed ? 'error' : 'ok',
        ...(failed ? { error: (result.error as { message: string }).message } : {}),
      },
    });
    return clip(JSON.stringify(result));
  }

  /** web_search: the caller's web-search access, then the deployment's provider. */
  private async searchWeb(args: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const { allowed } = await this.client.call(WebSearchAccessService.method.checkAccess, {});
    if (!allowed)
      return { error: { code: 'WEB_SEARCH_ACCESS_REQUIRED', message: 'This user has no web-search access' } };
    if (!this.webSearch) return { error: { code: 'UNAVAILABLE', message: 'No web search provider is configured' } };
    const results = await this.webSearch.search(
      { query: String(args.query), numResults: Number(args.numResults ?? 5), type: 'auto', includeText: false },
      { signal },
    );
    return { results: results.map((r) => ({ title: r.title, url: r.url, snippet: r.snippet ?? '' })) };
  }
}
