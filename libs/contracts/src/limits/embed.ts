/** Field limits of embed configurations and keys (chat component). */
export const EMBED_CONFIG_NAME_MAX = 200;
export const EMBED_SYSTEM_PROMPT_MAX = 20_000;
export const EMBED_MODEL_MAX = 256;
export const EMBED_DEFAULT_CONTEXT_MAX = 20;
export const EMBED_ISSUER_MAX = 2_048;
export const EMBED_JWKS_JSON_MAX_BYTES = 65_536;
export const EMBED_KEY_LABEL_MAX = 200;
export const EMBED_KEY_ORIGINS_MAX = 50;
export const EMBED_ORIGIN_MAX = 2_048;
export const EMBED_FEEDBACK_MODES = ['off', 'fragment-feedback', 'host-event'] as const;
export const EMBED_CONTEXT_TYPES = ['fragment', 'collection', 'file'] as const;
export const EMBED_THEMES = ['auto', 'light', 'dark'] as const;

/** The embed chat (docs/chat.md, "Embed chat"). */
export const EMBED_CHAT_MESSAGES_MAX = 100;
export const EMBED_CHAT_MESSAGE_MAX_CHARS = 32_000;
export const EMBED_CHAT_CONTEXT_ITEMS_MAX = 20;
export const EMBED_FEEDBACK_RATINGS = ['positive', 'negative'] as const;
export const EMBED_FEEDBACK_COMMENT_MAX = 4_000;
export const EMBED_ANSWERS_MAX = 10;
export const EMBED_ANSWER_OPTION_MAX = 500;
/** The agent loop's bounds: model calls per turn, output tokens per call and per turn, time per turn. */
export const EMBED_AGENT_STEPS_MAX = 8;
export const EMBED_AGENT_OUTPUT_TOKENS_PER_CALL = 4_096;
export const EMBED_AGENT_TOKENS_PER_TURN = 200_000;
export const EMBED_AGENT_TURN_MS = 120_000;
/** A paused turn waits this long for its answer; its state is at most this large. */
export const EMBED_HELD_TURN_TTL_SECONDS = 900;
export const EMBED_HELD_TURN_MAX_BYTES = 1_048_576;
/** How much of a tool result or a context item the model is shown. */
export const EMBED_TOOL_RESULT_MAX_CHARS = 16_000;
export const EMBED_CONTEXT_ITEM_MAX_CHARS = 8_000;
/** Messages of a stored conversation sent back to the model (the newest). */
export const EMBED_HISTORY_MESSAGES_MAX = 200;
