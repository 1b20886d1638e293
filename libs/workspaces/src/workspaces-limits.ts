/** Field limits shared by the HTTP DTOs (edge validation) and the service (re-validation). */
// Those of the write messages live in @kw/contracts, where the service's hop enforces them.
export { WORKSPACE_NAME_MAX, WORKSPACE_DESCRIPTION_MAX, VISIBILITIES } from '@kw/contracts';
export const DISCOVER_LIMIT_DEFAULT = 20;
export const DISCOVER_LIMIT_MAX = 100;
export const NOTIFICATIONS_LIMIT_DEFAULT = 20;
export const NOTIFICATIONS_LIMIT_MAX = 100;
/** Invitations are valid this long after they are sent. */
export const INVITATION_TTL_DAYS = 7;
export const EMAIL_MAX = 320;
export const ZONE_NAME_MAX = 200;
export const ZONE_REGION_MAX = 100;
export const ZONE_ENDPOINT_MAX = 2048;
export const LEAF_VERSION_MAX = 100;
/** A Leaf's heartbeat names at most this many read-only workspaces (a zone holds far fewer). */
export const FROZEN_IDS_MAX = 10_000;
