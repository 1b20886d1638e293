import { Injectable } from '@nestjs/common';
import { HostedZonesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { assertAccountAllowed } from '@kw/platform-access-policy';
import { IdentityDirectory } from '../identity-directory.js';
import { WorkspaceAccess } from '../workspace-access.js';
import { HandoffIssuer } from './handoff-issuer.js';
import { HandoffKeys } from './handoff-keys.js';
import { notAHostedZoneWorkspace } from './hosted-zone-errors.js';

/**
 * Token handoff: a short-lived ES256 JWT that lets the caller act on a Leaf-backed workspace
 * at its Leaf (HandoffIssuer; docs/hosted-zones.md#token-handoff), and the keys that sign them.
 */
@Injectable()
export class HandoffHandlers {
  constructor(
    private readonly access: WorkspaceAccess,
    private readonly keys: HandoffKeys,
    private readonly issuer: HandoffIssuer,
    private readonly identity: IdentityDirectory,
  ) {}

  @Handles(HostedZonesService.method.issueHandoff)
  async issue(input: RequestOf<typeof HostedZonesService, 'issueHandoff'>, context: RequestContext) {
    // The same 401/403/404 as reading the workspace.
    const authorized = await this.access.authorize(context, input.workspaceId, 'workspaces:read');
    const { workspace } = authorized;
    if (!workspace.hostedZoneId) throw notAHostedZoneWorkspace();
    return this.issuer.issue(context, authorized, {
      id: workspace.hostedZoneId,
      endpointUrl: workspace.hostedZone?.endpointUrl ?? '',
    });
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
