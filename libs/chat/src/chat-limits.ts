/** Limits of the chat component (docs/chat.md). Field limits of vault messages live in @kw/contracts. */
export {
  EMBED_AGENT_OUTPUT_TOKENS_PER_CALL,
  EMBED_AGENT_STEPS_MAX,
  EMBED_AGENT_TOKENS_PER_TURN,
  EMBED_AGENT_TURN_MS,
  EMBED_ANSWER_OPTION_MAX,
  EMBED_ANSWERS_MAX,
  EMBED_CHAT_CONTEXT_ITEMS_MAX,
  EMBED_CHAT_MESSAGE_MAX_CHARS,
  EMBED_CHAT_MESSAGES_MAX,
  EMBED_CONTEXT_ITEM_MAX_CHARS,
  EMBED_FEEDBACK_COMMENT_MAX,
  EMBED_FEEDBACK_RATINGS,
  EMBED_HELD_TURN_MAX_BYTES,
  EMBED_HELD_TURN_TTL_SECONDS,
  EMBED_HISTORY_MESSAGES_MAX,
  EMBED_TOOL_RESULT_MAX_CHARS,
  EMBED_CONFIG_NAME_MAX,
  EMBED_CONTEXT_TYPES,
  EMBED_DEFAULT_CONTEXT_MAX,
  EMBED_FEEDBACK_MODES,
  EMBED_ISSUER_MAX,
  EMBED_JWKS_JSON_MAX_BYTES,
  EMBED_KEY_LABEL_MAX,
  EMBED_KEY_ORIGINS_MAX,
  EMBED_MODEL_MAX,
  EMBED_ORIGIN_MAX,
  EMBED_SYSTEM_PROMPT_MAX,
  EMBED_THEMES,
  EXPERT_KEYWORD_MAX,
  EXPERT_KEYWORDS_MAX,
  EXPERT_MODEL_MAX,
  EXPERT_NAME_MAX,
  EXPERT_SYSTEM_PROMPT_MAX,
  EXPERT_TOOLS_MAX,
  VAULT_SECRET_DESCRIPTION_MAX,
  VAULT_SECRET_NAME_MAX,
  VAULT_SECRET_PROVIDER_MAX,
  VAULT_SECRET_TYPES,
  VAULT_SECRET_VALUE_MAX_BYTES,
  type VaultSecretType,
} from '@kw/contracts';

/** Spec (Limits): an image prompt is 1 to 4000 characters, and `n` must be 1. */
export const IMAGE_PROMPT_MAX = 4_000;
export const IMAGE_N = 1;

/** A request body of /api/v1/chat/completions may carry images as data URLs. */
export const CHAT_BODY_LIMIT_BYTES = 32 * 1024 * 1024;
export const CHAT_MESSAGES_MAX = 2_000;
export const CHAT_TOOLS_MAX = 128;
export const CHAT_STOP_MAX = 4;
export const CHAT_MODEL_ID_MAX = 256;

export { WEB_SEARCH_QUERY_MAX } from '@kw/contracts';
export const WEB_SEARCH_RESULTS_MAX = 50;
export const WEB_SEARCH_RESULTS_DEFAULT = 10;

export const VAULT_ACCESS_LOG_DEFAULT = 50;
export const VAULT_ACCESS_LOG_MAX = 500;
/** A user's secrets: enough for every provider and tool, small enough to list in one answer. */
export const VAULT_SECRETS_PER_USER_MAX = 500;

/** Pages of experts and embed configurations. */
export const CHAT_PAGE_DEFAULT = 20;
/** The page's bounds (contract limits: the MCP list tools read them too). */
export { CHAT_PAGE_MAX, CHAT_OFFSET_MAX } from '@kw/contracts';

/** Keys per configuration: a site, its staging and a few rotations. */
export const EMBED_KEYS_PER_CONFIG_MAX = 50;
