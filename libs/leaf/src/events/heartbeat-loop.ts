import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { CloudClient, CloudRefusedError, type HeartbeatAnswer, type Placement } from '../service/cloud/cloud-client.js';
import { RevokedHandoffs } from '../service/credentials/revoked-handoffs.js';
import { CloudLink } from '../service/health/cloud-link.js';
import { HandoffKeys } from '../service/keys/handoff-keys.js';
import { LEAF_SETTINGS, type LeafSettings } from '../leaf-settings.js';
import { LeafStateRepository, type Enrollment } from '../persistence/leaf-state.repository.js';
import { isUuid } from '@kw/platform-ids';
import { FragmentsService, SearchService, WebhooksService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';

/**
 * Every LEAF_HEARTBEAT_SECONDS: tells the Cloud the Leaf is alive (endpoint and version only),
 * takes the handoff revocations it answers (the bound on how long a revoked token still
 * works), provisions the placements it answers and reports each one ready, and refreshes the
 * Cloud keys when due. A Cloud that cannot be reached is logged (once per outage) and recorded
 * for the health report; the Leaf keeps serving with what it has.
 */
@Injectable()
export class HeartbeatLoop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private cloudDown = false;

  constructor(
    private readonly state: LeafStateRepository,
    private readonly cloud: CloudClient,
    private readonly keys: HandoffKeys,
    private readonly revoked: RevokedHandoffs,
    private readonly link: CloudLink,
    private readonly client: ServiceClient,
    @Inject(LEAF_SETTINGS) private readonly settings: LeafSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One heartbeat, its placements and a due key refresh. Never throws. */
  async beat(): Promise<void> {
    const enrollment = this.state.current();
    if (!enrollment) return;
    for (const workspaceId of this.state.orphans())
      await this.purgeOrphan(workspaceId).catch((err: unknown) =>
        this.logger.error(
          { err, workspaceId },
          "could not purge a previous zone's workspace; retrying with the next heartbeat",
        ),
      );
    const answer = await this.cloud
      .heartbeat(enrollment.zoneCredential, this.state.frozenWorkspaces())
      .catch((err: unknown) => this.reportFailure(err));
    if (answer) {
      this.link.succeeded();
      if (this.state.refused()) this.logger.info({}, "the Cloud accepts this Leaf's zone credential again");
      await this.state.setRefused(null);
      if (this.cloudDown) this.logger.info({ cloudUrl: this.settings.cloudUrl }, 'the Cloud answers heartbeats again');
      this.cloudDown = false;
      // First: a revoked token must not be served a moment longer than needed.
      if (answer.revocations) await this.revoked.replace(answer.revocations);
      await this.adoptIssuer(enrollment, answer);
      // The Cloud withdrew or added keys (a forced rotation): fetch them now, not at the next refresh.
      if (answer.handoffKeyIds?.length && !this.keys.matches(answer.handoffKeyIds)) await this.keys.refresh();
      // Moving out: read-only from now; the next heartbeat tells the Cloud, which lets the copy begin.
      if (answer.frozenWorkspaceIds) await this.state.replaceFrozen(answer.frozenWorkspaceIds);
      for (const workspaceId of answer.removedWorkspaceIds ?? [])
        await this.remove(enrollment.zoneCredential, workspaceId).catch((err: unknown) =>
          this.logger.error({ err, workspaceId }, 'could not remove a workspace; retrying with the next heartbeat'),
        );
      for (const placement of answer.placements) {
        await this.provision(enrollment.zoneCredential, placement).catch((err: unknown) =>
          this.logger.error({ err, workspaceId: placement.workspaceId }, 'could not provision a placement'),
        );
      }
    }
    if (this.keys.stale()) await this.keys.refresh();
  }

  /**
   * The Cloud's PUBLIC_URL changed since the enrollment: its tokens carry another `iss` (and it
   * names its keys by another URL). The heartbeat is answered to this zone's credential by
   * CLOUD_URL, the same Cloud whose enrollment answer and keys the Leaf trusts, so the Leaf
   * takes them: otherwise it would refuse every token while its link looks healthy.
   */
  private async adoptIssuer(enrollment: Enrollment, answer: HeartbeatAnswer): Promise<void> {
    const issuer = answer.issuer ?? enrollment.issuer;
    const jwksUri = answer.jwksUri ?? enrollment.jwksUri;
    if (issuer === enrollment.issuer && jwksUri === enrollment.jwksUri) return;
    await this.state.adoptIssuer(issuer, jwksUri);
    this.logger.warn(
      { previousIssuer: enrollment.issuer, issuer, jwksUri },
      "the Cloud's issuer changed (its PUBLIC_URL): handoff tokens are checked against the new one; those naming the previous one are refused",
    );
    if (jwksUri !== enrollment.jwksUri) await this.keys.refresh();
  }

  private async provision(zoneCredential: string, placement: Placement): Promise<void> {
    if (!isUuid(placement.workspaceId)) {
      this.logger.warn({ workspaceId: placement.workspaceId }, 'ignoring a placement whose workspace id is not a UUID');
      return;
    }
    const fresh = !this.state.isProvisioned(placement.workspaceId);
    await this.state.provision(placement.workspaceId, placement.name);
    if (fresh) this.logger.info({ workspaceId: placement.workspaceId }, 'workspace provisioned');
    try {
      await this.cloud.placementReady(zoneCredential, placement.workspaceId);
      await this.state.markReadyReported(placement.workspaceId);
      this.logger.info({ workspaceId: placement.workspaceId }, 'placement reported ready');
    } catch (err) {
      // The next heartbeat lists the placement again; provisioning is idempotent.
      this.logger.warn(
        { workspaceId: placement.workspaceId, err: (err as Error).message },
        'could not report a placement ready; retrying with the next heartbeat',
      );
    }
  }

  /**
   * A workspace moved away (or a move here was aborted): it stops being served first, then its
   * data is purged component by component, then the Cloud is told. Each step is idempotent, so a
   * failure anywhere is simply repeated with the next heartbeat, which lists it again.
   */
  private async remove(zoneCredential: string, workspaceId: string): Promise<void> {
    await this.state.deprovision(workspaceId);
    await this.purge(workspaceId);
    await this.cloud.placementRemoved(zoneCredential, workspaceId);
    this.logger.info({ workspaceId }, 'workspace removed from this Leaf (moved away)');
  }

  /** A workspace of the zone this Leaf served before it enrolled into its zone now: purged, then forgotten. */
  private async purgeOrphan(workspaceId: string): Promise<void> {
    await this.purge(workspaceId);
    await this.state.forgetOrphan(workspaceId);
    this.logger.info({ workspaceId }, "a previous zone's workspace purged from this Leaf");
  }

  /** Every component's data of the workspace (fragments, types, collections, graph, search, webhooks). Idempotent. */
  private async purge(workspaceId: string): Promise<void> {
    const slow = { timeoutMs: 300_000 };
    await this.client.call(FragmentsService.method.purgeWorkspaceFragments, { workspaceId }, slow);
    await this.client.call(SearchService.method.purgeWorkspaceSearchData, { workspaceId }, slow);
    await this.client.call(WebhooksService.method.purgeWorkspaceWebhooks, { workspaceId }, slow);
  }

  private async reportFailure(err: unknown): Promise<void> {
    if (err instanceof CloudRefusedError && err.status === 401) {
      this.link.failed('refused');
      // Its zone was deleted or another Leaf enrolled for it: serve nothing from now on (data kept).
      const first = !this.state.refused();
      await this.state
        .setRefused(new Date())
        .catch((e: unknown) => this.logger.error({ err: e }, 'could not record the refusal'));
      if (first)
        this.logger.error(
          { cloudUrl: this.settings.cloudUrl },
          "the Cloud refused this Leaf's zone credential (zone deleted or enrolled elsewhere): the Leaf serves nothing; start it with a new ENROLLMENT_TOKEN",
        );
      return;
    }
    if (!this.cloudDown)
      this.logger.warn(
        { cloudUrl: this.settings.cloudUrl, err: (err as Error).message },
        'heartbeat failed; the Leaf keeps serving with its cached keys',
      );
    else this.logger.debug({ err: (err as Error).message }, 'heartbeat failed again');
    this.cloudDown = true;
    this.link.failed('unreachable');
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.beat().finally(() => {
        this.running = undefined;
        this.schedule(this.settings.heartbeatMs);
      });
    }, delayMs);
    this.timer.unref();
  }
}
