import { ConfigError } from '@kw/platform-config';

/** What a plan caps; an absent limit is no limit. */
export interface PlanLimits {
  /** Input plus output tokens of model calls per calendar month (UTC). */
  monthlyTokens?: number;
  /** Images generated per calendar month (UTC). */
  monthlyImages?: number;
  /** Fragments in each workspace the account owns (under the deployment's MAX_FRAGMENTS_PER_WORKSPACE). */
  fragmentsPerWorkspace?: number;
  /** Bytes of files in each workspace the account owns. */
  storageBytes?: number;
  /** Members (owner included) of each workspace the account owns. */
  membersPerWorkspace?: number;
  /** Workspaces the account owns (archived ones included: they can be restored). */
  workspacesPerUser?: number;
  /** Requests per minute the account's credentials may send through the gateway. */
  requestsPerMinute?: number;
}

/** What a billing provider sells the plan as; absent: the plan cannot be bought (docs/billing.md). */
export interface PlanBilling {
  /** The provider's price id (Stripe: `price_...`). */
  priceId: string;
}

export interface PlanEntitlements {
  /** Web search (`/api/v1/web/search` and the agents' web tool). */
  webSearch: boolean;
  /** Model ids it may call; absent: every model of the deployment. */
  models?: string[];
}

export interface Plan {
  id: string;
  name: string;
  limits: PlanLimits;
  entitlements: PlanEntitlements;
  billing?: PlanBilling;
}

export interface PlanCatalog {
  defaultPlanId: string;
  plans: Map<string, Plan>;
}

/**
 * Without PLANS (a self-hosted deployment): one plan, no limits; web search stays an
 * administrator's grant per account, as before plans existed.
 */
export const SELF_HOSTED_PLAN: Plan = {
  id: 'self-hosted',
  name: 'Self-hosted',
  limits: {},
  entitlements: { webSearch: false },
};

const ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const LIMIT_KEYS: ReadonlyArray<keyof PlanLimits> = [
  'monthlyTokens',
  'monthlyImages',
  'fragmentsPerWorkspace',
  'storageBytes',
  'membersPerWorkspace',
  'workspacesPerUser',
  'requestsPerMinute',
];

/** PLANS (JSON): `{default, plans: [{id, name, limits, entitlements}]}`; a bad value stops the start. */
export function parsePlans(text: string | undefined): PlanCatalog {
  if (!text?.trim())
    return { defaultPlanId: SELF_HOSTED_PLAN.id, plans: new Map([[SELF_HOSTED_PLAN.id, SELF_HOSTED_PLAN]]) };
  const fail = (problem: string): never => {
    throw new ConfigError([`PLANS: ${problem}`]);
  };
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return fail('not valid JSON');
  }
  const { default: defaultPlanId, plans } = (root ?? {}) as { default?: unknown; plans?: unknown };
  if (!Array.isArray(plans) || plans.length === 0) fail('plans must be a non-empty array');
  const catalog = new Map<string, Plan>();
  (plans as unknown[]).forEach((entry, i) => {
    const at = `plans[${i}]`;
    const p = (entry ?? {}) as Record<string, unknown>;
    if (typeof p.id !== 'string' || !ID.test(p.id)) fail(`${at}.id: lower-case letters, digits and -, 1 to 63`);
    if (catalog.has(p.id as string)) fail(`${at}.id: "${p.id}" is used twice`);
    const limits = (p.limits ?? {}) as Record<string, unknown>;
    for (const [key, value] of Object.entries(limits))
      if (!LIMIT_KEYS.includes(key as keyof PlanLimits) || !Number.isInteger(value) || (value as number) < 0)
        fail(`${at}.limits.${key}: unknown, or not a non-negative integer`);
    const entitlements = (p.entitlements ?? {}) as Record<string, unknown>;
    if (entitlements.webSearch !== undefined && typeof entitlements.webSearch !== 'boolean')
      fail(`${at}.entitlements.webSearch: true or false`);
    if (
      entitlements.models !== undefined &&
      (!Array.isArray(entitlements.models) || entitlements.models.some((m) => typeof m !== 'string'))
    )
      fail(`${at}.entitlements.models: a list of model ids`);
    const billing = p.billing as { priceId?: unknown } | undefined;
    if (billing !== undefined && (typeof billing?.priceId !== 'string' || !billing.priceId.trim()))
      fail(`${at}.billing.priceId: the billing provider's price id`);
    if (billing && [...catalog.values()].some((other) => other.billing?.priceId === billing.priceId))
      fail(`${at}.billing.priceId: "${String(billing.priceId)}" is sold as another plan already`);
    catalog.set(p.id as string, {
      id: p.id as string,
      name: typeof p.name === 'string' && p.name ? p.name : (p.id as string),
      limits: limits as PlanLimits,
      entitlements: { webSearch: entitlements.webSearch === true, models: entitlements.models as string[] | undefined },
      billing: billing ? { priceId: billing.priceId as string } : undefined,
    });
  });
  if (typeof defaultPlanId !== 'string' || !catalog.has(defaultPlanId)) fail('default must name one of the plans');
  return { defaultPlanId: defaultPlanId as string, plans: catalog };
}

/** The calendar month (UTC) `now` is in: budgets count from its start and reset at its end. */
export function monthOf(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}
