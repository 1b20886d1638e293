/** Field limits shared by the HTTP DTOs (edge validation) and the service (re-validation). */
export const WORKSPACE_NAME_MAX = 200;
export const WORKSPACE_DESCRIPTION_MAX = 2000;
export const VISIBILITIES = ['private', 'public'] as const;
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
