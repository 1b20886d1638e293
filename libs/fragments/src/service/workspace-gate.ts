export { WorkspaceGate, type Gate, type GateOptions } from '@kw/platform-workspace-gate';

/**
 * The owner id of content no member created (fragment types, the defaults included): passed
 * as resourceOwnerId, it lets only the roles that change anyone's content change it.
 */
export const NO_MEMBER = 'workspace';
