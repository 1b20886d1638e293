import type { Relation } from './roles.js';

/**
 * What a relation to a workspace lets a user do, independent of the credential used.
 * "Content" is everything members create inside a workspace: fragments, fragment types,
 * collections and files. "Own" content is content the user created.
 */
export const CAPABILITIES = {
  read: 'Read the workspace, its content and search it',
  seeMembers: 'List members and pending invitations',
  writeOwn: 'Create content; update content it created',
  writeAny: 'Update content created by anyone',
  deleteOwn: 'Delete or archive content it created',
  deleteAny: 'Delete or archive content created by anyone',
  manageMembers: 'Invite members, change roles, remove members, revoke invitations',
  manageWebhooks: 'Create, read, update, delete and test webhooks',
  updateSettings: 'Update name, description, visibility and settings',
  deleteWorkspace: 'Archive (delete) the workspace',
  restoreWorkspace: 'Restore an archived workspace',
} as const;
export type Capability = keyof typeof CAPABILITIES;
export const CAPABILITY_NAMES = Object.keys(CAPABILITIES) as Capability[];

/**
 * The permission matrix, as data so that the README and the tests print the same thing.
 * Collaborators curate all content and its integrations (webhooks) but do not decide who is
 * in the workspace or what it is; contributors only touch their own content.
 */
export const PERMISSION_MATRIX: Readonly<Record<Relation, readonly Capability[]>> = {
  owner: CAPABILITY_NAMES,
  collaborator: ['read', 'seeMembers', 'writeOwn', 'writeAny', 'deleteOwn', 'deleteAny', 'manageWebhooks'],
  contributor: ['read', 'seeMembers', 'writeOwn', 'deleteOwn'],
  viewer: ['read', 'seeMembers'],
  // Subscribers of a public workspace: read-style access only, and not the member list.
  subscriber: ['read'],
  none: [],
};

export function relationHas(relation: Relation, capability: Capability): boolean {
  return PERMISSION_MATRIX[relation].includes(capability);
}
