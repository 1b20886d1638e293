import { WORKSPACE_NOT_FOUND_MESSAGE } from '@kw/platform-access-policy';
import { AppError, ErrorCode, notFound } from '@kw/platform-errors';

/** Error codes of the workspaces component (docs/workspaces.md). */
export const WorkspaceErrorCode = {
  INVALID_ROLE: 'INVALID_ROLE',
  LAST_OWNER: 'LAST_OWNER',
  ALREADY_MEMBER: 'ALREADY_MEMBER',
  INVITATION_PENDING: 'INVITATION_PENDING',
  INVITATION_EXPIRED: 'INVITATION_EXPIRED',
  HOSTED_ZONE_NOT_FOUND: 'HOSTED_ZONE_NOT_FOUND',
  SUBSCRIPTIONS_CLOSED: 'SUBSCRIPTIONS_CLOSED',
} as const;

export const invalidRole = (role: string, allowed: readonly string[]): AppError =>
  new AppError({
    status: 400,
    code: WorkspaceErrorCode.INVALID_ROLE,
    message: `role must be one of ${allowed.join(', ')} (got '${role.length > 40 ? `${role.slice(0, 40)}…` : role}')`,
    param: 'role',
  });

export const lastOwner = (): AppError =>
  new AppError({
    status: 409,
    code: WorkspaceErrorCode.LAST_OWNER,
    message: 'A workspace must keep at least one owner',
  });

export const alreadyMember = (): AppError =>
  new AppError({
    status: 409,
    code: WorkspaceErrorCode.ALREADY_MEMBER,
    message: 'That user is already a member of the workspace',
  });

export const invitationPending = (): AppError =>
  new AppError({
    status: 409,
    code: WorkspaceErrorCode.INVITATION_PENDING,
    message: 'A pending invitation for that email already exists',
  });

export const invitationExpired = (): AppError =>
  new AppError({
    status: 409,
    code: WorkspaceErrorCode.INVITATION_EXPIRED,
    message: 'The invitation has expired; ask for a new one',
  });

export const hostedZoneNotFound = (): AppError =>
  new AppError({
    status: 404,
    code: WorkspaceErrorCode.HOSTED_ZONE_NOT_FOUND,
    message: 'Hosted zone not found',
    param: 'hostedZoneId',
  });

export const subscriptionsClosed = (): AppError =>
  new AppError({
    status: 409,
    code: WorkspaceErrorCode.SUBSCRIPTIONS_CLOSED,
    message: 'The workspace does not accept new subscriptions',
  });

export const memberNotFound = (): AppError => notFound('Member');
export const invitationNotFound = (): AppError => notFound('Invitation');
export const notificationNotFound = (): AppError => notFound('Notification');

/** The one workspace 404 of the access policy, for checks the policy itself does not make. */
export const workspaceNotFound = (): AppError =>
  new AppError({ status: 404, code: ErrorCode.NOT_FOUND, message: WORKSPACE_NOT_FOUND_MESSAGE });
