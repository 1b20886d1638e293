import { AppError, ErrorCode, notFound } from '@kw/platform-errors';

/** Error codes of hosted zones (docs/hosted-zones.md). HOSTED_ZONE_NOT_FOUND is in ../service/workspace-errors.ts. */
export const HostedZoneErrorCode = {
  HOSTED_ZONE_OFFLINE: 'HOSTED_ZONE_OFFLINE',
  HOSTED_ZONE_ENDPOINT_NOT_HTTPS: 'HOSTED_ZONE_ENDPOINT_NOT_HTTPS',
  NOT_A_HOSTED_ZONE_WORKSPACE: 'NOT_A_HOSTED_ZONE_WORKSPACE',
  HOSTED_ZONE_MISMATCH: 'HOSTED_ZONE_MISMATCH',
} as const;

/** A zone the caller may not see answers exactly like a missing one. */
export const zoneNotFound = (): AppError => notFound('Hosted zone');

export const zoneInUse = (count: number): AppError =>
  new AppError({
    status: 409,
    code: ErrorCode.CONFLICT,
    message: `The hosted zone still holds ${count} workspace${count === 1 ? '' : 's'}; move them first`,
    details: { workspaceCount: count },
  });

/** A move to or from the zone has not ended: deleting it would strand the move (and its workspace read-only). */
export const zoneHasMoves = (moves: Array<{ id: string; workspaceId: string }>): AppError =>
  new AppError({
    status: 409,
    code: ErrorCode.CONFLICT,
    message: `A workspace is moving ${moves.length === 1 ? '' : `(${moves.length} moves) `}to or from the hosted zone (move ${moves[0]!.id}); complete or abort the move first`,
    details: { moveId: moves[0]!.id, workspaceId: moves[0]!.workspaceId, moveCount: moves.length },
  });

export const zoneHoldsArchived = (count: number): AppError =>
  new AppError({
    status: 409,
    code: ErrorCode.CONFLICT,
    message: `The hosted zone still holds ${count} archived workspace${count === 1 ? '' : 's'}, whose data lives on its Leaf; delete them with it (deleteArchivedWorkspaces=true) or restore and move them first`,
    details: { archivedWorkspaceCount: count },
  });

export const hostedZoneOffline = (status: string): AppError =>
  new AppError({
    status: 409,
    code: HostedZoneErrorCode.HOSTED_ZONE_OFFLINE,
    message:
      status === 'pending'
        ? 'The hosted zone has no enrolled Leaf yet'
        : 'The hosted zone is offline (no recent heartbeat from its Leaf)',
    param: 'hostedZoneId',
  });

/** Clients send handoff tokens to the zone's endpoint: never in the clear (HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS aside). */
export const hostedZoneEndpointNotHttps = (): AppError =>
  new AppError({
    status: 409,
    code: HostedZoneErrorCode.HOSTED_ZONE_ENDPOINT_NOT_HTTPS,
    message:
      "The hosted zone's endpoint is not https: clients would send it their handoff tokens in the clear. Give the Leaf an https PUBLIC_URL",
    param: 'hostedZoneId',
  });

export const notAHostedZoneWorkspace = (): AppError =>
  new AppError({
    status: 409,
    code: HostedZoneErrorCode.NOT_A_HOSTED_ZONE_WORKSPACE,
    message: 'The workspace is Cloud-backed: call the Cloud directly, no handoff is needed',
  });

/** A Leaf-facing credential (enrollment token, zone credential) that is missing, unknown, used or expired. */
export const leafUnauthenticated = (what: 'enrollment token' | 'zone credential'): AppError =>
  new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message: `Invalid or expired ${what}` });

/** A Leaf asked to enroll only into its own zone, with another zone's token (which stays unused). */
export const hostedZoneMismatch = (): AppError =>
  new AppError({
    status: 409,
    code: HostedZoneErrorCode.HOSTED_ZONE_MISMATCH,
    message: 'The enrollment token is for another hosted zone than hostedZoneId; it was not used',
    param: 'hostedZoneId',
  });

/** A placement the calling zone does not hold. */
export const placementNotFound = (): AppError => notFound('Placement');
