/** Roles a member can hold in a workspace, highest first. */
export const WORKSPACE_ROLES = ['owner', 'collaborator', 'contributor', 'viewer'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

/** Roles an invitation may carry (spec: Member and invitation). Ownership is never handed out by invitation. */
export const INVITATION_ROLES = ['collaborator', 'contributor', 'viewer'] as const;
export type InvitationRole = (typeof INVITATION_ROLES)[number];

/**
 * How a user stands towards one workspace: a member role, a subscriber of a public
 * workspace (read-style access only), or nothing at all.
 */
export const RELATIONS = [...WORKSPACE_ROLES, 'subscriber', 'none'] as const;
export type Relation = (typeof RELATIONS)[number];

export type Visibility = 'private' | 'public';

export const isWorkspaceRole = (value: unknown): value is WorkspaceRole =>
  typeof value === 'string' && (WORKSPACE_ROLES as readonly string[]).includes(value);

export const isInvitationRole = (value: unknown): value is InvitationRole =>
  typeof value === 'string' && (INVITATION_ROLES as readonly string[]).includes(value);

export const isRelation = (value: unknown): value is Relation =>
  typeof value === 'string' && (RELATIONS as readonly string[]).includes(value);

/**
 * The relation the policy actually applies. A public workspace is readable by every signed-in
 * user, so a non-member is treated as a subscriber there; a subscription to a workspace that
 * has since become private grants nothing, so that subscriber is treated as a stranger.
 */
export function effectiveRelation(relation: Relation, visibility: Visibility): Relation {
  if (visibility === 'public' && relation === 'none') return 'subscriber';
  if (visibility === 'private' && relation === 'subscriber') return 'none';
  return relation;
}
