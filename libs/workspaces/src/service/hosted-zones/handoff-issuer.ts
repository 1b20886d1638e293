import { Inject, Injectable } from '@nestjs/common';
import { effectiveRelation } from '@kw/platform-access-policy';
import type { RequestContext } from '@kw/platform-context';
import { callerOf } from '../caller.js';
import { stateOf, type AuthorizedWorkspace } from '../workspace-access.js';
import { HandoffRevocationsRepository } from '../../persistence/handoff-revocations.repository.js';
import { handoffActions } from './handoff-actions.js';
import { HandoffKeys } from './handoff-keys.js';
import { workspaceNotFound } from '../workspace-errors.js';
import { signHandoff } from './handoff-tokens.js';
import { HOSTED_ZONE_SETTINGS, zoneAudience, type HostedZoneSettings } from './hosted-zone-settings.js';

/** A handoff token and what the caller needs to use it (IssueHandoffResponse's fields). */
export interface IssuedHandoff {
  token: string;
  expiresAt: string;
  expiresIn: number;
  hostedZoneId: string;
  endpointUrl: string;
  audience: string;
  actions: string[];
  workspaceId: string;
}

/**
 * Signs a handoff token for an authorized caller and a zone: the workspace's own zone, or the
 * target zone of its move (the import there). It carries the actions the access policy allows
 * the caller now, never more, and is noted (zone, user, credential, expiry) before it is
 * answered, so disabling the account or revoking the credential reaches that zone.
 */
@Injectable()
export class HandoffIssuer {
  constructor(
    private readonly keys: HandoffKeys,
    private readonly revocations: HandoffRevocationsRepository,
    @Inject(HOSTED_ZONE_SETTINGS) private readonly settings: HostedZoneSettings,
  ) {}

  async issue(
    context: RequestContext,
    { workspace, relation, userId, auth }: AuthorizedWorkspace,
    zone: { id: string; endpointUrl: string },
  ): Promise<IssuedHandoff> {
    const state = stateOf(workspace)!;
    const actions = handoffActions({ auth, account: callerOf(context).account, workspace: state, relation });
    const audience = zoneAudience(zone.id);
    const credentialId = context.auth?.credentialId ?? '';
    // As the policy sees it: a non-member reading a public workspace is its subscriber.
    const role = effectiveRelation(relation, state.visibility);
    const signed = await signHandoff(await this.keys.signingKey(), {
      issuer: this.settings.issuer,
      audience,
      userId,
      workspaceId: workspace.id,
      role,
      actions,
      credentialId,
      ttlSeconds: this.settings.handoffTtlSeconds,
      now: new Date(),
    });
    const issuance = { hostedZoneId: zone.id, userId, credentialId, expiresAt: signed.expiresAt };
    // A reader's access ends when the workspace is made private, which may commit after it was
    // authorized above: noted only while it is still public, else refused as a private workspace is.
    if (role === 'subscriber') {
      if (!(await this.revocations.noteReaderIssuance(issuance, workspace.id))) throw workspaceNotFound();
    } else await this.revocations.noteIssuance(issuance);
    return {
      token: signed.token,
      expiresAt: signed.expiresAt.toISOString(),
      expiresIn: this.settings.handoffTtlSeconds,
      hostedZoneId: zone.id,
      endpointUrl: zone.endpointUrl,
      audience,
      actions,
      workspaceId: workspace.id,
    };
  }
}
