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
