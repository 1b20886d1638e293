/** DI tokens of what the runtime provides to every component. */
export const APP_CONFIG = Symbol('APP_CONFIG');
export const LOGGER = Symbol('LOGGER');
export const METRICS = Symbol('METRICS');
/** The process's database: owned by platform-persistence, where the Prisma client providers inject it. */
export { DATABASE } from '@kw/platform-persistence';
export const RUNNING_COMPONENTS = Symbol('RUNNING_COMPONENTS');
/** Names of the components the gateway routes to (and so checks in /api/health). */
export const EXPECTED_COMPONENTS = Symbol('EXPECTED_COMPONENTS');
/** A Leaf's CloudLinkHealth (service-info/cloud-link.ts), reported by /api/health when provided. */
export const CLOUD_LINK_HEALTH = Symbol('CLOUD_LINK_HEALTH');
