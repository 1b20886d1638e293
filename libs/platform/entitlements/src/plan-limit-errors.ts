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
 * 403 PLAN_LIMIT_REACHED (docs/plans.md): a plan's limit, named in `details.limit`. 403, not
 * 429: waiting does not help, a larger plan or less usage does (429 stays for rates).
 */
export function planLimitReached(limit: LimitKey, max: number, planId: string): AppError {
  return new AppError({
    status: 403,
    code: 'PLAN_LIMIT_REACHED',
    message: `The plan ${planId} allows ${max} ${WHAT[limit]}`,
    details: { limit, max, planId },
  });
}
