import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigError } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { CloudClient, CloudRefusedError } from '../cloud/cloud-client.js';
import { RevokedHandoffs } from '../credentials/revoked-handoffs.js';
import { CloudLink } from '../health/cloud-link.js';
import { HandoffKeys } from '../keys/handoff-keys.js';
import { LEAF_SETTINGS, type LeafSettings } from '../../leaf-settings.js';
import {
  hashEnrollmentToken,
  LeafStateRepository,
  type Enrollment,
  type NewEnrollment,
} from '../../persistence/leaf-state.repository.js';

/**
 * Start-up (before the Leaf takes traffic): uses the stored enrollment, or enrolls with
 * ENROLLMENT_TOKEN (also when it differs from the token of the stored enrollment: the zone's
 * enrollment was reset). Then loads the Cloud keys: fetched if the Cloud answers, else the
 * persisted ones; and the persisted revocations until the first heartbeat brings the current
 * ones. Configuration problems are ConfigErrors (exit 2).
 */
@Injectable()
export class LeafEnrollment implements OnModuleInit {
  constructor(
    private readonly state: LeafStateRepository,
    private readonly cloud: CloudClient,
    private readonly keys: HandoffKeys,
    private readonly revoked: RevokedHandoffs,
    private readonly link: CloudLink,
    @Inject(LEAF_SETTINGS) private readonly settings: LeafSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    const enrollment = await this.enrollment();
    this.logger.info(
      {
        hostedZoneId: enrollment.hostedZoneId,
        cloudUrl: this.settings.cloudUrl,
        endpointUrl: this.settings.endpointUrl,
        workspaces: this.state.workspaces().length,
      },
      'leaf enrolled',
    );
    if (enrollment.refusedAt) {
      // Until a heartbeat is answered again: serving nothing, as before the restart.
      this.link.failed('refused');
      this.logger.error(
        { hostedZoneId: enrollment.hostedZoneId, refusedAt: enrollment.refusedAt.toISOString() },
        "the Cloud refused this Leaf's zone credential (zone deleted or enrolled elsewhere): it serves nothing; start it with a new ENROLLMENT_TOKEN",
      );
    }
    this.keys.usePersisted();
    this.revoked.usePersisted();
    const fetched = await this.keys.refresh();
    if (!fetched && !enrollment.jwks)
      this.logger.warn({}, 'no Cloud keys yet: handoff tokens are refused until the JWKS can be fetched');
  }

  private async enrollment(): Promise<Enrollment> {
    const stored = await this.state.load();
    const token = this.settings.enrollmentToken;
    if (stored && (!token || hashEnrollmentToken(token) === stored.enrollmentTokenHash)) return stored;
    if (!token) {
      throw new ConfigError([
        'ENROLLMENT_TOKEN: required on the first start of a Leaf (this database holds no enrollment). Create ' +
          'a hosted zone on the Cloud (POST /api/hosted-zones) and start the Leaf with its enrollmentToken',
      ]);
    }
    if (stored)
      this.logger.warn(
        { previousHostedZoneId: stored.hostedZoneId },
        'ENROLLMENT_TOKEN differs from the one this Leaf enrolled with: enrolling again',
      );
    try {
      const enrolled = await this.enrollKeepingZone(token, stored);
      return await this.state.saveEnrollment(enrolled, token);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      if (err instanceof CloudRefusedError && err.status === 401) {
        throw new ConfigError([
          'ENROLLMENT_TOKEN: the Cloud refused it (unknown, already used or expired). Ask the Cloud for a new ' +
            'one (POST /api/hosted-zones/{id}/enrollment-token)',
        ]);
      }
      throw err;
    }
  }

  /**
   * A Leaf holding workspaces of its zone enrolls only into that zone (the Cloud checks the token
   * before using it). A token of another zone is taken only when leavePreviousZone allows it, so a
   * refused start leaves the Cloud as it was: the other zone not enrolled, its token unused.
   */
  private async enrollKeepingZone(token: string, stored: Enrollment | undefined): Promise<NewEnrollment> {
    if (!stored || this.state.workspaces().length === 0) return this.cloud.enroll(token);
    try {
      return await this.cloud.enroll(token, stored.hostedZoneId);
    } catch (err) {
      if (!(err instanceof CloudRefusedError && err.code === 'HOSTED_ZONE_MISMATCH')) throw err;
    }
    await this.leavePreviousZone(stored);
    return this.cloud.enroll(token);
  }

  /**
   * The token is another zone's: a Leaf serves one zone, so the previous zone's workspaces will
   * be purged (docs/hosted-zones-leaf.md#enrolling-into-another-zone). Only when the Cloud no longer
   * accepts this Leaf for that zone (it was deleted, with its workspaces, or another Leaf
   * enrolled for it): while it does, its workspaces' content is here and nowhere else, so the
   * start is refused instead and nothing is changed (the token stays unused).
   */
  private async leavePreviousZone(stored: Enrollment): Promise<void> {
    const workspaces = this.state.workspaces().length;
    const stillAccepted = await this.cloud.heartbeat(stored.zoneCredential).then(
      () => true,
      (err: unknown) => {
        if (err instanceof CloudRefusedError && err.status === 401) return false;
        throw err;
      },
    );
    if (stillAccepted) {
      throw new ConfigError([
        `ENROLLMENT_TOKEN: it is for another hosted zone than ${stored.hostedZoneId}, whose ${workspaces} ` +
          "workspace(s) this Leaf's database holds and which the Cloud still counts on this Leaf for. A Leaf " +
          "serves one zone: start the new zone's Leaf on its own DATA_DIR / DATABASE_URL (the token was not " +
          'used: it still enrolls that Leaf), or move those workspaces away and delete their zone first',
      ]);
    }
    this.logger.warn(
      { previousHostedZoneId: stored.hostedZoneId, workspaces },
      "enrolling into another zone: the previous zone's workspaces are no longer served and will be purged",
    );
  }
}
