import { ACTIONS, ACTION_DEFINITIONS, capabilityFor, type Action } from './actions.js';
import { relationHas } from './permission-matrix.js';
import type { Relation } from './roles.js';
import { scopeAllows } from './scopes.js';

/**
 * Whether a relation to a workspace allows an action there, whatever the credential.
 * Account-level actions (tokens, profile, vault...) are not a workspace matter: false here.
 */
export function roleAllows(relation: Relation, action: Action, ownContent: boolean): boolean {
  const capability = capabilityFor(action, ownContent);
  return capability !== undefined && relationHas(relation, capability);
}

/** True for actions whose capability differs between own content and anyone's. */
export function dependsOnOwnership(action: Action): boolean {
  return typeof ACTION_DEFINITIONS[action].needs === 'object';
}

/**
 * The workspace actions a credential may perform for a relation: token scope ∩ role
 * permission. A viewer's token with `fragments:write` still cannot write.
 */
export function effectiveActions(relation: Relation, scopes: readonly string[], ownContent: boolean): Action[] {
  return ACTIONS.filter((a) => scopeAllows(scopes, a) && roleAllows(relation, a, ownContent));
}
