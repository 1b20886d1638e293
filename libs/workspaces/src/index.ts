export * from './workspaces.component.js';
export { HandoffKeysRewrap } from './service/hosted-zones/handoff-keys-rewrap.js';
