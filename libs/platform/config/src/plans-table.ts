import { ConfigError } from './app-config.js';

/*
 * The PLANS table (docs/plans.md): read by the components that apply plans, and checked with the
 * rest of the environment (loadConfig), so a bad table stops a start before anything is made.
 */

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

const ROOT_FIELDS = ['default', 'plans'];
const PLAN_FIELDS = ['id', 'name', 'limits', 'entitlements', 'billing'];
const ENTITLEMENT_FIELDS = ['webSearch', 'models'];
const BILLING_FIELDS = ['priceId'];
const NAME_MAX = 200;

/**
 * PLANS (JSON): `{default, plans: [{id, name, limits?, entitlements?, billing?}]}`; a bad value
 * stops the start with a message naming the field. Unknown fields are refused, not ignored: a
 * typo (`limit` for `limits`) would otherwise silently drop every limit of a plan.
 */
export function parsePlans(text: string | undefined): PlanCatalog {
  if (!text?.trim())
    return { defaultPlanId: SELF_HOSTED_PLAN.id, plans: new Map([[SELF_HOSTED_PLAN.id, SELF_HOSTED_PLAN]]) };
  const fail = (problem: string): never => {
    throw new ConfigError([`PLANS: ${problem}`]);
  };
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  /** An optional object whose fields are all known. */
  const objectAt = (value: unknown, at: string, known: string[] | undefined): Record<string, unknown> => {
    if (value === undefined) return {};
    if (!isObject(value)) return fail(`${at}: must be an object`);
    if (known) for (const key of Object.keys(value)) if (!known.includes(key)) fail(`${at}.${key}: unknown field`);
    return value;
  };
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return fail('not valid JSON');
  }
  if (!isObject(root)) fail('must be an object with "default" and "plans"');
  for (const key of Object.keys(root as object)) if (!ROOT_FIELDS.includes(key)) fail(`${key}: unknown field`);
  const { default: defaultPlanId, plans } = root as { default?: unknown; plans?: unknown };
  if (!Array.isArray(plans) || plans.length === 0) fail('plans must be a non-empty array');
  const catalog = new Map<string, Plan>();
  (plans as unknown[]).forEach((entry, i) => {
    const at = `plans[${i}]`;
    if (!isObject(entry)) fail(`${at}: must be an object`);
    const p = objectAt(entry, at, PLAN_FIELDS);
    if (typeof p.id !== 'string' || !ID.test(p.id)) fail(`${at}.id: lower-case letters, digits and -, 1 to 63`);
    if (catalog.has(p.id as string)) fail(`${at}.id: "${p.id}" is used twice`);
    if (typeof p.name !== 'string' || !p.name.trim() || p.name.length > NAME_MAX)
      fail(`${at}.name: required, 1 to ${NAME_MAX} characters`);
    const limits = objectAt(p.limits, `${at}.limits`, undefined);
    for (const [key, value] of Object.entries(limits))
      if (!LIMIT_KEYS.includes(key as keyof PlanLimits) || !Number.isInteger(value) || (value as number) < 0)
        fail(`${at}.limits.${key}: unknown, or not a non-negative integer`);
    const entitlements = objectAt(p.entitlements, `${at}.entitlements`, ENTITLEMENT_FIELDS);
    if (entitlements.webSearch !== undefined && typeof entitlements.webSearch !== 'boolean')
      fail(`${at}.entitlements.webSearch: true or false`);
    if (
      entitlements.models !== undefined &&
      (!Array.isArray(entitlements.models) || entitlements.models.some((m) => typeof m !== 'string'))
    )
      fail(`${at}.entitlements.models: a list of model ids`);
    const billing = p.billing === undefined ? undefined : objectAt(p.billing, `${at}.billing`, BILLING_FIELDS);
    if (billing !== undefined && (typeof billing.priceId !== 'string' || !billing.priceId.trim()))
      fail(`${at}.billing.priceId: the billing provider's price id`);
    if (billing && [...catalog.values()].some((other) => other.billing?.priceId === billing.priceId))
      fail(`${at}.billing.priceId: "${String(billing.priceId)}" is sold as another plan already`);
    catalog.set(p.id as string, {
      id: p.id as string,
      name: p.name as string,
      limits: limits as PlanLimits,
      entitlements: { webSearch: entitlements.webSearch === true, models: entitlements.models as string[] | undefined },
      billing: billing ? { priceId: billing.priceId as string } : undefined,
    });
  });
  if (typeof defaultPlanId !== 'string' || !catalog.has(defaultPlanId)) fail('default must name one of the plans');
  return { defaultPlanId: defaultPlanId as string, plans: catalog };
}
