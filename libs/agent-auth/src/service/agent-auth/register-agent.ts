import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { RegisterAgentRequest, RegisterAgentResponseSchema } from '@kw/contracts';
import { ID_JAG_TOKEN_TYPE } from '../../domain/agent-auth/oauth.js';
import { oauthError } from '../../domain/agent-auth/oauth-errors.js';
import { parseAgentScope } from '../../domain/agent-auth/agent-scopes.js';
import { AgentClaims } from './agent-claims.js';
import { IdentityAssertions } from './identity-assertions.js';
import { canonicalEmail } from '../../domain/accounts/email.js';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;
const CLIENT_NAME_MAX = 100;

/**
 * POST /agent/identity. `identity_assertion`: the ID-JAG is verified (and used up) and bound to
 * its account; the agent then exchanges a fresh ID-JAG at the token endpoint. `service_auth`:
 * a claim starts, and the answer is the same whether or not login_hint has an account.
 */
@Injectable()
export class RegisterAgent {
  constructor(
    private readonly assertions: IdentityAssertions,
    private readonly claims: AgentClaims,
  ) {}

  async execute(
    input: RegisterAgentRequest,
    now = new Date(),
  ): Promise<MessageInitShape<typeof RegisterAgentResponseSchema>> {
    if (input.type === 'identity_assertion') {
      if (input.assertionType !== ID_JAG_TOKEN_TYPE)
        throw oauthError('invalid_request', `assertion_type must be ${ID_JAG_TOKEN_TYPE}`);
      const bound = await this.assertions.bind(input.assertion, input.issuer, now);
      return { userId: bound.user.id, agentName: bound.clientId, scopes: bound.scopes };
    }
    if (input.type === 'service_auth') {
      const email = canonicalEmail(input.loginHint);
      if (!EMAIL.test(email)) throw oauthError('invalid_request', 'login_hint must be an email address');
      const agentName = (input.clientName ?? '').trim() || 'An agent';
      if (agentName.length > CLIENT_NAME_MAX)
        throw oauthError('invalid_request', `client_name is at most ${CLIENT_NAME_MAX} characters`);
      const started = await this.claims.start(
        { loginHint: email, agentName, scopes: parseAgentScope(input.scope), base: input.issuer },
        now,
      );
      return {
        claim: started.claim,
        claimToken: started.claimToken,
        expiresIn: started.expiresIn,
        interval: started.interval,
      };
    }
    throw oauthError('invalid_request', 'type must be identity_assertion or service_auth');
  }
}
