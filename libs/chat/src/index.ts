export * from './chat.component.js';
export { VaultRewrap, type RewrapProgress } from './service/vault-rewrap.js';
