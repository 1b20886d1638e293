import { timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { IssueTokenRequest } from '@kw/contracts';
import { isUuid } from '@kw/platform-ids';
import { oauthError } from '../../domain/agent-auth/oauth-errors.js';
import { hashToken } from '../../domain/tokens/token-format.js';
import { OAuthApplicationsRepository, type ApplicationRow } from '../../persistence/oauth-applications.repository.js';

function sameHash(a: string, b: string | null): boolean {
  if (!b || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * Client authentication at the token endpoint (RFC 6749 §2.3): a confidential client proves
 * itself with its secret, by HTTP Basic or in the body, as it registered; the previous secret
 * still works during a rotation's overlap. A public client names itself (client_id) and proves
 * nothing: PKCE protects its codes. Every failure is the same 401 invalid_client.
 */
@Injectable()
export class ClientAuthentication {
  constructor(private readonly applications: OAuthApplicationsRepository) {}

  /**
   * For requests that may come from an application or from an agent (refresh): a client_id that
   * names no application (an agent's own, from its ID-JAG) is not ours to check: undefined.
   */
  async authenticateIfApplication(input: IssueTokenRequest, now: Date): Promise<ApplicationRow | undefined> {
    const clientId = input.clientId ?? '';
    if (!input.clientAuthMethod || !isUuid(clientId) || !(await this.applications.findById(clientId))) return undefined;
    return this.authenticate(input, now);
  }

  /**
   * For grants that need no client authentication (jwt-bearer, the claim grant): a request that
   * presents a client secret (Basic or in the body) must still pass with it (RFC 6749 §5.2); one
   * that fails (a wrong secret, an unknown or disabled client) is invalid_client, not ignored.
   */
  async authenticateIfPresented(input: IssueTokenRequest, now: Date): Promise<void> {
    if (input.clientAuthMethod === 'client_secret_basic' || input.clientAuthMethod === 'client_secret_post')
      await this.authenticate(input, now);
  }

  async authenticate(input: IssueTokenRequest, now: Date): Promise<ApplicationRow> {
    const clientId = input.clientId ?? '';
    const application = isUuid(clientId) ? await this.applications.findById(clientId) : null;
    if (!application || application.status !== 'active') throw invalidClient();
    if (application.clientType === 'public') {
      if (input.clientAuthMethod !== 'none') throw invalidClient();
      return application;
    }
    if (input.clientAuthMethod === 'none' || !input.clientSecret) throw invalidClient();
    const hash = hashToken(input.clientSecret);
    const previousValid = application.previousSecretExpiresAt !== null && application.previousSecretExpiresAt > now;
    if (!sameHash(hash, application.secretHash) && !(previousValid && sameHash(hash, application.previousSecretHash)))
      throw invalidClient();
    return application;
  }
}

const invalidClient = () => oauthError('invalid_client', 'Client authentication failed', 401);
