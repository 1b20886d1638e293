import * as z from 'zod/v4';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { WEB_SEARCH_QUERY_MAX } from '@kw/contracts';
import { defineAgentTool, type AgentTool } from '../agent-tool.js';

/** The chat agent loop runs these itself; reaching `run` means a runtime offered one it cannot run. */
const ranByChat = (): never => {
  throw new AppError({
    status: 501,
    code: ErrorCode.BAD_REQUEST,
    message: 'This tool runs inside a chat conversation only',
  });
};

export const ASK_USER_QUESTIONS_MAX = 5;
export const ASK_USER_OPTIONS_MAX = 10;

/**
 * Tools that need the conversation around them: asking the person a structured question pauses
 * the turn until they answer, and web search needs the chat runtime's provider and the user's
 * entitlement. Assignable to experts; not offered over MCP.
 */
export const conversationTools: AgentTool[] = [
  defineAgentTool({
    id: 'ask_user',
    title: 'Ask the user',
    description:
      'Ask the person you are talking with one or more structured questions (with options to pick from) when ' +
      'you need their choice or a detail to go on. The turn pauses until they answer; the answers come back ' +
      'as this tool result: [{question, selected[], other?}].',
    inputSchema: {
      questions: z
        .array(
          z.object({
            question: z.string().min(1).max(500),
            options: z.array(z.string().min(1).max(200)).max(ASK_USER_OPTIONS_MAX).optional(),
            multiple: z.boolean().optional().describe('More than one option may be selected'),
            allowOther: z.boolean().optional().describe('The person may write their own answer'),
          }),
        )
        .min(1)
        .max(ASK_USER_QUESTIONS_MAX),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    runsIn: 'chat',
    run: ranByChat,
  }),

  defineAgentTool({
    id: 'web_search',
    title: 'Search the web',
    description:
      'Search the public web (for what the workspace does not know). Answers title, URL and an excerpt per ' +
      'result. Available when the embed configuration enables web search and the user has web-search access.',
    inputSchema: {
      query: z.string().min(1).max(WEB_SEARCH_QUERY_MAX),
      numResults: z.number().int().min(1).max(10).optional(),
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
    runsIn: 'chat',
    run: ranByChat,
  }),
];
