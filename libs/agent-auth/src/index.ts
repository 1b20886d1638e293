export * from './agent-auth.component.js';
export { classifyBearer, generateToken, hashToken, TOKEN_PREFIX } from './domain/tokens/token-format.js';
export { BETA_FEATURES } from './service/accounts/beta-features.js';
