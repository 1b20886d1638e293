import { AppError } from '@kw/platform-errors';
import type { LimitKey } from './account-limits.js';

const WHAT: Record<LimitKey, string> = {
  monthlyTokens: 'tokens a month',
  monthlyImages: 'images a month',
  fragmentsPerWorkspace: 'fragments per workspace',
  storageBytes: 'bytes of files per workspace',
  membersPerWorkspace: 'members per workspace',
  workspacesPerUser: 'workspaces per account',
  requestsPerMinute: 'requests per minute',
};

/**
 * 403 PLAN_LIMIT_REACHED (docs/plans.md): a plan's limit, named in `details.limit`, with what
 * the refusing component knows of it (the maximum, what is left, when it resets). 403, not 429:
 * waiting does not help, a larger plan or less usage does (429 stays for rates). Every
 * component refuses through this, so the code, status and `details.limit` never drift apart.
 */
export function planLimitError(limit: LimitKey, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError({ status: 403, code: 'PLAN_LIMIT_REACHED', message, details: { ...details, limit } });
}

/** The refusal of a limit whose maximum and plan are known: "The plan free allows 3 ...". */
export function planLimitReached(limit: LimitKey, max: number, planId: string): AppError {
  return planLimitError(limit, `The plan ${planId} allows ${max} ${WHAT[limit]}`, { max, planId });
}
