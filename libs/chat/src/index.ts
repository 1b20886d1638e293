export * from './chat.component.js';
export { VaultRewrap, type RewrapProgress } from './service/vault-rewrap.js';
export { EmbedKeyTokensRewrap } from './service/embed-key-tokens-rewrap.js';
