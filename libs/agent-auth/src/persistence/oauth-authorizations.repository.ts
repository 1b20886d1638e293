import { Inject, Injectable } from '@nestjs/common';
import { retryOnConflict, type ControlPrisma } from '@kw/platform-persistence';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';
import { insertGrant, type AgentGrantRow, type NewAgentGrant, type NewTokenPair } from './agent-grants.repository.js';
import { assertCallerWaiting } from '@kw/platform-transport';

export type AuthorizationRow = ControlPrisma.OAuthAuthorizationModel;

export interface NewAuthorization {
  /** The account and the browser session shown the review: only they may decide it. */
  userId: string;
  sessionId: string;
  applicationId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  requestedScopes: string[];
  audience: string | null;
  expiresAt: Date;
}

export interface AuthorizationDecision {
  /** The deciding browser session: the one the request is bound to. */
  sessionId: string;
  approve: boolean;
  scopes: string[];
  allWorkspaces: boolean;
  workspaceIds: string[];
  codeHash: string | null;
  codeExpiresAt: Date;
}

/** The outcome of presenting an authorization code. */
export type CodeOutcome =
  | { kind: 'issued'; grant: AgentGrantRow }
  /** Exchanged before: the grant it made was revoked just now. */
  | { kind: 'replayed'; grantId: string | null }
  | { kind: 'invalid' };

const DAY_MS = 86_400_000;

/** Authorization requests and their codes (only the code's hash is stored). */
@Injectable()
export class OAuthAuthorizationsRepository {
  constructor(@Inject(IDENTITY_DB) private readonly db: IdentityDb) {}

  create(authorization: NewAuthorization): Promise<AuthorizationRow> {
    return this.db.oAuthAuthorization.create({ data: authorization });
  }

  /** Forgets up to `limit` requests that ended a day ago; how many went. */
  sweepEnded(now: Date, limit: number): Promise<number> {
    return this.db.$executeRaw`DELETE FROM control.oauth_authorizations WHERE id IN (
      SELECT id FROM control.oauth_authorizations WHERE expires_at < ${new Date(now.getTime() - DAY_MS)}
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
  }

  findById(id: string): Promise<AuthorizationRow | null> {
    return this.db.oAuthAuthorization.findUnique({ where: { id } });
  }

  findByCodeHash(codeHash: string): Promise<AuthorizationRow | null> {
    return this.db.oAuthAuthorization.findUnique({ where: { codeHash } });
  }

  /** Decides a pending, unexpired request of this session; false when it was decided or expired already. */
  async decide(id: string, decision: AuthorizationDecision, now: Date): Promise<boolean> {
    const { count } = await this.db.oAuthAuthorization.updateMany({
      where: { id, sessionId: decision.sessionId, status: 'pending', expiresAt: { gt: now } },
      data: {
        status: decision.approve ? 'approved' : 'denied',
        scopes: decision.approve ? decision.scopes : [],
        allWorkspaces: decision.allWorkspaces,
        workspaceIds: decision.approve && !decision.allWorkspaces ? decision.workspaceIds : [],
        codeHash: decision.codeHash,
        expiresAt: decision.codeExpiresAt,
      },
    });
    return count === 1;
  }

  /**
   * Exchanges an approved code once, in one transaction: the authorization becomes redeemed
   * and the grant with its first tokens is stored. A code presented again revokes that grant
   * (OAuth 2.1 §4.1.3). `check` validates the request against the authorization and its
   * account (as it is now) first; throwing changes nothing.
   */
  async redeem(
    codeHash: string,
    now: Date,
    check: (authorization: AuthorizationRow, account: { active: boolean }) => NewAgentGrant,
    tokens: NewTokenPair,
  ): Promise<CodeOutcome> {
    return retryOnConflict(() =>
      this.db.$transaction(async (tx) => {
        // The application's row first (key-share: its deletion waits for this grant, then revokes
        // it; or it went first, and the code is invalid), then the request's, in the order the
        // deletion takes them. A second presentation racing the first waits for the request's row
        // and then reads it redeemed (a replay that revokes what it issued), not still approved.
        const [owner] = await tx.$queryRaw<Array<{ applicationId: string }>>`
        SELECT application_id AS "applicationId" FROM control.oauth_authorizations WHERE code_hash = ${codeHash}`;
        if (!owner) return { kind: 'invalid' } as const;
        const application = await tx.$queryRaw<unknown[]>`
        SELECT 1 FROM control.oauth_applications WHERE id = ${owner.applicationId}::uuid FOR KEY SHARE`;
        if (application.length === 0) return { kind: 'invalid' } as const;
        await tx.$queryRaw`SELECT id FROM control.oauth_authorizations WHERE code_hash = ${codeHash} FOR UPDATE`;
        const authorization = await tx.oAuthAuthorization.findUnique({ where: { codeHash } });
        if (!authorization) return { kind: 'invalid' } as const;
        if (authorization.status === 'redeemed') {
          if (authorization.grantId) {
            await tx.agentGrant.updateMany({
              where: { id: authorization.grantId, revokedAt: null },
              data: { revokedAt: now, revokedReason: 'authorization code replayed' },
            });
            await tx.agentToken.updateMany({
              where: { grantId: authorization.grantId, revokedAt: null },
              data: { revokedAt: now },
            });
          }
          return { kind: 'replayed', grantId: authorization.grantId } as const;
        }
        if (authorization.status !== 'approved' || authorization.expiresAt <= now) return { kind: 'invalid' } as const;
        const account = authorization.userId
          ? await tx.user.findUnique({ where: { id: authorization.userId }, select: { status: true } })
          : null;
        const grant = check(authorization, { active: account?.status === 'active' });
        const { count } = await tx.oAuthAuthorization.updateMany({
          where: { id: authorization.id, status: 'approved' },
          data: { status: 'redeemed' },
        });
        if (count === 0) return { kind: 'invalid' } as const;
        const row = await insertGrant(tx, grant, tokens);
        await tx.oAuthAuthorization.update({ where: { id: authorization.id }, data: { grantId: row.id } });
        // A caller that got 504 retries with the same code: redeemed now, the retry would read
        // as a replay and revoke what it issued. Rolled back instead, the retry redeems it.
        assertCallerWaiting();
        return { kind: 'issued', grant: row } as const;
      }),
    );
  }
}
