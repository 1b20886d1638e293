import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigError } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { CloudClient, CloudRefusedError } from '../cloud/cloud-client.js';
import { RevokedHandoffs } from '../credentials/revoked-handoffs.js';
import { HandoffKeys } from '../keys/handoff-keys.js';
import { LEAF_SETTINGS, type LeafSettings } from '../../leaf-settings.js';
import { hashEnrollmentToken, LeafStateRepository, type Enrollment } from '../../persistence/leaf-state.repository.js';

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
      const enrolled = await this.cloud.enroll(token);
      return await this.state.saveEnrollment(enrolled, token);
    } catch (err) {
      if (err instanceof CloudRefusedError && err.status === 401) {
        throw new ConfigError([
          'ENROLLMENT_TOKEN: the Cloud refused it (unknown, already used or expired). Ask the Cloud for a new ' +
            'one (POST /api/hosted-zones/{id}/enrollment-token)',
        ]);
      }
      throw err;
    }
  }
}
