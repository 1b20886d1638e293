import { Inject, Injectable } from '@nestjs/common';
import { HostedZonesService } from '@kw/contracts';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { AccessChanges } from '../access-changes.js';
import { HandoffRevocationsRepository } from '../../persistence/handoff-revocations.repository.js';
import { HostedZonesRepository } from '../../persistence/hosted-zones.repository.js';
import { WorkspaceMovesRepository } from '../../persistence/workspace-moves.repository.js';
import { isUuid } from '@kw/platform-ids';
import { HandoffKeys } from './handoff-keys.js';
import { hostedZoneMismatch, leafUnauthenticated, placementNotFound } from './hosted-zone-errors.js';
import {
  HOSTED_ZONE_SETTINGS,
  REVOCATION_MARGIN_MS,
  jwksPath,
  zoneAudience,
  type HostedZoneSettings,
} from './hosted-zone-settings.js';
import type { HostedZoneRow } from './hosted-zone-view.js';
import { checkEndpointUrl, checkLeafVersion } from './zone-fields.js';
import {
  ENROLLMENT_TOKEN_PREFIX,
  ZONE_CREDENTIAL_PREFIX,
  hashSecret,
  looksLike,
  newZoneCredential,
} from './zone-secrets.js';

/**
 * The Leaf-facing half: a Leaf is not a user, so these carry their own credential (the
 * one-time enrollment token, then the zone credential) and no auth context. Only zone id,
 * endpoint, version, workspace ids and revoked ids cross here: never workspace content.
 */
@Injectable()
export class LeafLinkHandlers {
  constructor(
    private readonly zones: HostedZonesRepository,
    private readonly revocations: HandoffRevocationsRepository,
    @Inject(HOSTED_ZONE_SETTINGS) private readonly settings: HostedZoneSettings,
    private readonly changes: AccessChanges,
    private readonly keys: HandoffKeys,
    private readonly moves: WorkspaceMovesRepository,
  ) {}

  @Handles(HostedZonesService.method.enrollLeaf)
  async enroll(input: RequestOf<typeof HostedZonesService, 'enrollLeaf'>) {
    if (!looksLike(input.enrollmentToken, ENROLLMENT_TOKEN_PREFIX)) throw leafUnauthenticated('enrollment token');
    const endpointUrl = checkEndpointUrl(input.endpointUrl);
    const leafVersion = checkLeafVersion(input.leafVersion);
    const hash = hashSecret(input.enrollmentToken);
    const zone = await this.zones.findByEnrollmentTokenHash(hash);
    const now = new Date();
    if (!zone || !zone.enrollmentTokenExpiresAt || zone.enrollmentTokenExpiresAt <= now)
      throw leafUnauthenticated('enrollment token');
    // Checked before the token is used: a Leaf refusing to leave its zone changes nothing here.
    if (input.hostedZoneId && input.hostedZoneId !== zone.id) throw hostedZoneMismatch();
    const credential = newZoneCredential();
    // Conditional on the hash still being there: of two concurrent uses, exactly one wins.
    const reprovisioned = await this.zones.enroll(zone.id, hash, {
      credentialHash: hashSecret(credential),
      at: now,
      endpointUrl,
      leafVersion: leafVersion || null,
    });
    if (!reprovisioned) throw leafUnauthenticated('enrollment token');
    // The zone's endpoint is in every HOSTED_ZONE_REQUIRED answer of its workspaces.
    if (endpointUrl !== zone.endpointUrl) this.changes.everything();
    else if (reprovisioned.length > 0) this.changes.workspaces(reprovisioned);
    return {
      hostedZoneId: zone.id,
      zoneCredential: credential,
      issuer: this.settings.issuer,
      audience: zoneAudience(zone.id),
      jwksUri: `${this.settings.issuer}${jwksPath}`,
    };
  }

  @Handles(HostedZonesService.method.leafHeartbeat)
  async heartbeat(input: RequestOf<typeof HostedZonesService, 'leafHeartbeat'>) {
    const zone = await this.zoneOf(input.zoneCredential);
    const endpointUrl = input.endpointUrl ? checkEndpointUrl(input.endpointUrl) : undefined;
    const leafVersion = input.leafVersion ? checkLeafVersion(input.leafVersion) : undefined;
    await this.zones.heartbeat(zone.id, { endpointUrl, leafVersion });
    if (endpointUrl && endpointUrl !== zone.endpointUrl) this.changes.everything();
    // Moves out of the zone that the Leaf serves read-only now may start copying.
    const copying = await this.moves.sourcesFrozen(zone.id, input.frozenWorkspaceIds.filter(isUuid));
    if (copying.length > 0) this.changes.workspaces(copying.map((m) => m.workspaceId));
    const pending = [
      ...(await this.zones.pendingPlacements(zone.id)),
      // A workspace moving here is provisioned like a new placement; it stays where it is until the move completes.
      ...(await this.moves.pendingTargets(zone.id)).map((w) => ({ ...w, status: 'processing' })),
    ];
    // The whole current list every time (ids only, never content): the Leaf replaces its own.
    // Entries younger than the current token lifetime, and older ones while a token they match,
    // issued under a longer lifetime (HANDOFF_TOKEN_TTL_SECONDS lowered since), has not expired.
    const now = Date.now();
    const revocations = await this.revocations.forZone(
      zone.id,
      new Date(now - this.settings.revocationWindowMs),
      new Date(now - REVOCATION_MARGIN_MS),
    );
    return {
      hostedZoneId: zone.id,
      placements: pending.map((w) => ({ workspaceId: w.id, name: w.name, status: w.status })),
      revocations: revocations.map((r) => ({
        userId: r.userId ?? '',
        workspaceId: r.workspaceId ?? '',
        credentialId: r.credentialId ?? '',
        revokedAt: r.revokedAt.toISOString(),
      })),
      handoffKeyIds: (await this.keys.jwks()).keys.map((k) => k.kid!),
      frozenWorkspaceIds: await this.moves.frozenOn(zone.id),
      removedWorkspaceIds: await this.moves.leftoversOn(zone.id),
      // The issuer now: a Leaf enrolled before PUBLIC_URL changed would otherwise refuse every token.
      issuer: this.settings.issuer,
    };
  }

  @Handles(HostedZonesService.method.markPlacementReady)
  async ready(input: RequestOf<typeof HostedZonesService, 'markPlacementReady'>) {
    const zone = await this.zoneOf(input.zoneCredential);
    if (!isUuid(input.workspaceId)) throw placementNotFound();
    // Idempotent: a Leaf that reports again after a lost answer gets the same result.
    if (await this.zones.markPlacementReady(input.workspaceId, zone.id)) {
      this.changes.workspace(input.workspaceId);
      await this.zones.heartbeat(zone.id);
      const workspace = await this.zones.placement(input.workspaceId);
      return { placement: { workspaceId: workspace.id, name: workspace.name, status: workspace.status } };
    }
    // The target of a move: ready for the import, while the workspace stays on its source.
    const move = await this.moves.targetReady(input.workspaceId, zone.id);
    if (!move) throw placementNotFound();
    this.changes.workspace(input.workspaceId);
    const workspace = await this.zones.placement(input.workspaceId);
    return { placement: { workspaceId: workspace.id, name: workspace.name, status: 'active' } };
  }

  /** The Leaf purged a workspace that moved away (or whose move here was aborted). Idempotent. */
  @Handles(HostedZonesService.method.markPlacementRemoved)
  async removed(input: RequestOf<typeof HostedZonesService, 'markPlacementRemoved'>) {
    const zone = await this.zoneOf(input.zoneCredential);
    if (!isUuid(input.workspaceId)) throw placementNotFound();
    await this.moves.leftoverRemovedOn(zone.id, input.workspaceId);
    return {};
  }

  private async zoneOf(credential: string): Promise<HostedZoneRow> {
    if (!looksLike(credential, ZONE_CREDENTIAL_PREFIX)) throw leafUnauthenticated('zone credential');
    const zone = await this.zones.findByCredentialHash(hashSecret(credential));
    if (!zone) throw leafUnauthenticated('zone credential');
    return zone;
  }
}
