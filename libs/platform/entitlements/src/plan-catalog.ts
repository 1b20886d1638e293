// The PLANS table is read with the configuration (loadConfig checks it before a start makes anything).
export {
  LIMIT_KEYS,
  parsePlans,
  SELF_HOSTED_PLAN,
  type Plan,
  type PlanBilling,
  type PlanCatalog,
  type PlanEntitlements,
  type PlanLimits,
} from '@kw/platform-config';

/** The calendar month (UTC) `now` is in: budgets count from its start and reset at its end. */
export function monthOf(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}
