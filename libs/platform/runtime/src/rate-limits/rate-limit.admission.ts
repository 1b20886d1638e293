import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '@kw/platform-context';
import type { EdgeAdmission } from '@kw/platform-http';
import { AppError } from '@kw/platform-errors';
import { mostRestrictive, rateLimitedError, rateLimitHeaders, type RateLimitResult } from '@kw/platform-rate-limit';
import { RATE_LIMITERS, type RateLimiters } from './rate-limiters.js';
import { isUuid } from '@kw/platform-ids';
import { AccountLimits } from '@kw/platform-entitlements';

const UNLIMITED: RateLimitResult = {
  allowed: true,
  limit: Number.MAX_SAFE_INTEGER,
  remaining: Number.MAX_SAFE_INTEGER,
  resetSeconds: 60,
  retryAfterSeconds: 0,
};

/** Orchestrator probes and metrics scrapes are never limited: a 429 there would restart pods. */
const UNLIMITED_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/** The workspace a request is about, as the client named it (only a rate-limit key here: never trusted for access). */
function workspaceOf(request: FastifyRequest): string | undefined {
  const params = request.params as Record<string, string> | undefined;
  const query = request.query as Record<string, unknown> | undefined;
  const body = request.body as Record<string, unknown> | undefined;
  const fromPath = request.routeOptions?.url?.startsWith('/api/workspaces/:id') ? params?.id : undefined;
  const candidate = fromPath ?? query?.workspaceId ?? (body && typeof body === 'object' ? body.workspaceId : undefined);
  return isUuid(candidate) ? candidate.toLowerCase() : undefined;
}

/**
 * Per-credential and per-workspace request limits (429 with Retry-After; RateLimit-* headers on
 * every limited response). The AuthGuard admits each request through this once the caller is
 * known; anonymous requests are limited per address.
 */
@Injectable()
export class RateLimitAdmission implements EdgeAdmission {
  constructor(
    @Inject(RATE_LIMITERS) private readonly limiters: RateLimiters,
    private readonly accounts: AccountLimits,
  ) {}

  async admit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (UNLIMITED_ROUTES.has(request.routeOptions?.url ?? '')) return;
    const auth = requestContext.current()?.auth;
    const checks = [
      auth?.credentialId
        ? this.limiters.perCredential.hit(`cred:${auth.credentialId}`)
        : this.limiters.perAddress.hit(`ip:${request.ip}`),
    ];
    const workspaceId = workspaceOf(request);
    if (workspaceId) checks.push(this.limiters.perWorkspace.hit(`ws:${workspaceId}`));
    if (auth?.userId && this.accounts.anyPlanSets('requestsPerMinute')) checks.push(this.planRate(auth.userId));
    const result = checks.length === 1 ? await checks[0]! : mostRestrictive(await Promise.all(checks));
    void reply.headers(rateLimitHeaders(result));
    if (!result.allowed) throw rateLimitedError(result);
  }

  /**
   * A request without a credential counts as an anonymous request of its address before its
   * 401; a refused credential counts as one too, and as a failure of its address and of that
   * credential (FailedAuthThrottle), so guessing costs the guesser a 429, not us a lookup.
   */
  async authenticate<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    credential: string | undefined,
    attempt: () => Promise<T>,
  ): Promise<T> {
    const { failedAuth, perAddress } = this.limiters;
    if (credential === undefined) {
      this.refuseWhenLimited(reply, await perAddress.hit(`ip:${request.ip}`));
      return attempt();
    }
    const blocked = failedAuth.blocked(request.ip, credential);
    if (blocked) this.refuseWhenLimited(reply, blocked);
    try {
      return await attempt();
    } catch (err) {
      if (!AppError.isAppError(err) || err.status !== 401) throw err;
      const [throttled, anonymous] = await Promise.all([
        failedAuth.failed(request.ip, credential),
        perAddress.hit(`ip:${request.ip}`),
      ]);
      this.refuseWhenLimited(reply, throttled ?? anonymous);
      throw err;
    }
  }

  /** The account's plan's requestsPerMinute, over all its credentials; unlimited plans always pass. */
  private async planRate(userId: string): Promise<RateLimitResult> {
    const cap = await this.accounts.limitOf(userId, 'requestsPerMinute');
    if (!cap) return UNLIMITED;
    return this.limiters.perAccount(cap.planId, cap.max).hit(`acct:${userId}`);
  }

  private refuseWhenLimited(reply: FastifyReply, result: RateLimitResult): void {
    if (result.allowed) return;
    void reply.headers(rateLimitHeaders(result));
    throw rateLimitedError(result);
  }
}
