import { AppError } from '@kw/platform-errors';
import { decide, decideAccount, type AccessInput, type AccountAccessInput, type Denial } from './decide.js';

/**
 * The error a denial is answered with. No details are attached: a 404 must be byte-identical
 * whatever its reason, and the reason of a 401/403 is already in its message.
 */
export function denialError(denial: Denial): AppError {
  return new AppError({ status: denial.status, code: denial.code, message: denial.message });
}

/** `decide`, throwing the matching AppError when the action is not allowed. */
export function assertAllowed(input: AccessInput): void {
  const decision = decide(input);
  if (!decision.allowed) throw denialError(decision);
}

/** `decideAccount`, throwing the matching AppError when the action is not allowed. */
export function assertAccountAllowed(input: AccountAccessInput): void {
  const decision = decideAccount(input);
  if (!decision.allowed) throw denialError(decision);
}
