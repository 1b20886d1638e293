import { Inject, Injectable } from '@nestjs/common';
import { HostedZonesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { assertAccountAllowed } from '@kw/platform-access-policy';
import { callerOf } from '../caller.js';
import { IdentityDirectory } from '../identity-directory.js';
import { WorkspaceAccess, stateOf } from '../workspace-access.js';
import { HandoffRevocationsRepository } from '../../persistence/handoff-revocations.repository.js';
import { handoffActions } from './handoff-actions.js';
import { HandoffKeys } from './handoff-keys.js';
import { signHandoff } from './handoff-tokens.js';
import { notAHostedZoneWorkspace } from './hosted-zone-errors.js';
import { HOSTED_ZONE_SETTINGS, zoneAudience, type HostedZoneSettings } from './hosted-zone-settings.js';

/**
 * Token handoff: a short-lived ES256 JWT that lets the caller act on a Leaf-backed workspace
 * at its Leaf, carrying the actions the access policy allows the caller now (never more). Each
 * one is noted (zone, user, credential, expiry) before it is answered, so that disabling the
 * account or revoking the credential reaches that zone (docs/hosted-zones.md#revocation).
 */
@Injectable()
export class HandoffHandlers {
  constructor(
    private readonly access: WorkspaceAccess,
    private readonly keys: HandoffKeys,
    private readonly revocations: HandoffRevocationsRepository,
    @Inject(HOSTED_ZONE_SETTINGS) private readonly settings: HostedZoneSettings,
    private readonly identity: IdentityDirectory,
  ) {}

  @Handles(HostedZonesService.method.issueHandoff)
  async issue(input: RequestOf<typeof HostedZonesService, 'issueHandoff'>, context: RequestContext) {
    // The same 401/403/404 as reading the workspace.
    const { workspace, relation, userId, auth } = await this.access.authorize(
      context,
      input.workspaceId,
      'workspaces:read',
    );
    if (!workspace.hostedZoneId) throw notAHostedZoneWorkspace();
    const actions = handoffActions({
      auth,
      account: callerOf(context).account,
      workspace: stateOf(workspace),
      relation,
    });
    const audience = zoneAudience(workspace.hostedZoneId);
    const now = new Date();
    const credentialId = context.auth?.credentialId ?? '';
    const signed = await signHandoff(await this.keys.signingKey(), {
      issuer: this.settings.issuer,
      audience,
      userId,
      workspaceId: workspace.id,
      role: relation,
      actions,
      credentialId,
      ttlSeconds: this.settings.handoffTtlSeconds,
      now,
    });
    await this.revocations.noteIssuance({
      hostedZoneId: workspace.hostedZoneId,
      userId,
      credentialId,
      expiresAt: signed.expiresAt,
    });
    return {
      token: signed.token,
      expiresAt: signed.expiresAt.toISOString(),
      expiresIn: this.settings.handoffTtlSeconds,
      hostedZoneId: workspace.hostedZoneId,
      endpointUrl: workspace.hostedZone?.endpointUrl ?? '',
      audience,
      actions,
      workspaceId: workspace.id,
    };
  }

  @Handles(HostedZonesService.method.getHandoffKeys)
  async jwks(_input: RequestOf<typeof HostedZonesService, 'getHandoffKeys'>) {
    return { jwksJson: JSON.stringify(await this.keys.jwks()) };
  }

  /** Platform administrators (scope `admin`), after a suspected compromise of the signing key. */
  @Handles(HostedZonesService.method.rotateHandoffKeys)
  async rotate(_input: RequestOf<typeof HostedZonesService, 'rotateHandoffKeys'>, context: RequestContext) {
    const userId = context.auth?.userId;
    const platformAdmin = !!userId && (await this.identity.usersById([userId])).get(userId)?.platformAdmin === true;
    // The policy's answer for `admin`: 401 without an account, 403 without the scope or the role.
    assertAccountAllowed({
      auth: context.auth,
      account: userId ? { active: true, platformAdmin } : undefined,
      action: 'admin',
    });
    return this.keys.rotateNow();
  }
}
