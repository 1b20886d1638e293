import { scopeAllows, type Action } from '@kw/platform-access-policy';

/**
 * Who answers an embed turn and with which tools: pure rules, no I/O (docs/chat.md#embed-chat).
 */

export interface ExpertLike {
  id: string;
  name: string;
  systemPrompt: string;
  enabledTools: string[];
  routingKeywords: string[];
  modelPreference: string;
}

export interface EmbedFeatureSwitches {
  structuredQuestions: boolean;
  webSearch: boolean;
}

/**
 * What an agent without an expert may do: find and read, in the configuration's workspace. The
 * file tools too: the search tool names matching files with the chunk to read, and a visitor's
 * answer may be in an uploaded manual rather than a fragment.
 */
export const DEFAULT_EMBED_TOOLS = [
  'search',
  'get_fragment',
  'list_fragments',
  'list_collections',
  'related',
  'search_workspace_files',
  'read_workspace_file',
];
/** Tools that need a feature of the configuration switched on, whoever offers them. */
const GATED_TOOLS: Record<string, keyof EmbedFeatureSwitches> = {
  ask_user: 'structuredQuestions',
  web_search: 'webSearch',
};
/**
 * Tools whose every call needs a scope the caller may lack (a key acting through its creator's
 * scoped token without files:read): not offered, rather than offered to fail at each call.
 */
const SCOPED_TOOLS: Record<string, Action> = {
  list_workspace_files: 'files:read',
  search_workspace_files: 'files:read',
  read_workspace_file: 'files:read',
};

function matches(text: string, keyword: string): boolean {
  const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'iu').test(text);
}

/**
 * The expert for a turn: the first routed expert (oldest first) one of whose keywords appears
 * as a whole word or phrase in the user's last message, else the main expert, else none.
 */
export function routeTurn<E extends ExpertLike>(
  userText: string,
  main: E | undefined,
  routed: readonly E[],
): { expert: E | undefined; routed: boolean } {
  const hit = routed.find((e) => e.routingKeywords.some((k) => k && matches(userText, k)));
  return hit ? { expert: hit, routed: true } : { expert: main, routed: false };
}

/**
 * The tool ids offered: the expert's (or the default set), less those the configuration switched
 * off and those the caller's scopes do not allow.
 */
export function toolsFor(
  expert: ExpertLike | undefined,
  features: EmbedFeatureSwitches,
  callerScopes: readonly string[],
): string[] {
  const base = expert ? expert.enabledTools : [...DEFAULT_EMBED_TOOLS, 'ask_user', 'web_search'];
  return [...new Set(base)].filter((id) => {
    const gate = GATED_TOOLS[id];
    const scope = SCOPED_TOOLS[id];
    return (gate === undefined || features[gate]) && (scope === undefined || scopeAllows(callerScopes, scope));
  });
}

/**
 * The model of a turn: the one asked for (refused elsewhere when locked), else the expert's
 * preference unless the configuration locks its model, else the configuration's, else ''
 * (the deployment's first chat model).
 */
export function modelFor(
  asked: string | undefined,
  expert: ExpertLike | undefined,
  config: { model: string; modelLocked: boolean },
): string {
  if (config.modelLocked) return config.model;
  return asked || expert?.modelPreference || config.model;
}
