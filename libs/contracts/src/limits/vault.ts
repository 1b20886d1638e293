/** Field limits of vault secrets that their write messages carry (the rest stays in libs/chat). */
export const VAULT_SECRET_NAME_MAX = 200;
export const VAULT_SECRET_PROVIDER_MAX = 100;
export const VAULT_SECRET_DESCRIPTION_MAX = 2_000;
/** A value is a key, a token or an SSH private key: 64 KiB is room for all of them. */
export const VAULT_SECRET_VALUE_MAX_BYTES = 65_536;
export const VAULT_SECRET_TYPES = ['generic', 'env-var', 'api-key', 'git-github-oauth', 'git-ssh'] as const;
export type VaultSecretType = (typeof VAULT_SECRET_TYPES)[number];

/** Field limits of custom experts (chat component). */
export const EXPERT_NAME_MAX = 200;
export const EXPERT_SYSTEM_PROMPT_MAX = 20_000;
export const EXPERT_TOOLS_MAX = 64;
export const EXPERT_KEYWORDS_MAX = 50;
export const EXPERT_KEYWORD_MAX = 100;
export const EXPERT_MODEL_MAX = 256;
