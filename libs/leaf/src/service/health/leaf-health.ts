import { Inject, Injectable, Optional } from '@nestjs/common';
import type { CloudLinkHealth, CloudLinkReport } from '@kw/platform-runtime';
import { LEAF_CLOCK, LEAF_SETTINGS, type LeafSettings } from '../../leaf-settings.js';
import { LeafStateRepository } from '../../persistence/leaf-state.repository.js';
import { RevokedHandoffs } from '../credentials/revoked-handoffs.js';
import { HandoffKeys } from '../keys/handoff-keys.js';
import { CloudLink } from './cloud-link.js';
import { cloudLinkHealth } from './cloud-link-health.js';

/** The Leaf's part of /api/health: its link to the Cloud, read from the pieces that hold it. */
@Injectable()
export class LeafHealth implements CloudLinkHealth {
  private readonly now: () => number;

  constructor(
    private readonly state: LeafStateRepository,
    private readonly link: CloudLink,
    private readonly keys: HandoffKeys,
    private readonly revoked: RevokedHandoffs,
    @Inject(LEAF_SETTINGS) private readonly settings: LeafSettings,
    @Optional() @Inject(LEAF_CLOCK) clock?: () => number,
  ) {
    this.now = clock ?? Date.now;
  }

  report(): CloudLinkReport {
    return cloudLinkHealth({
      now: this.now(),
      hostedZoneId: this.state.current()?.hostedZoneId,
      link: this.link.state(),
      keyCount: this.keys.keyCount,
      keysFetchedAt: this.keys.lastFetchedAt,
      revocationCount: this.revoked.size,
      revocationsUpdatedAt: this.revoked.updatedAt,
      heartbeatMs: this.settings.heartbeatMs,
      cloudTimeoutMs: this.settings.cloudTimeoutMs,
      jwksRefreshMs: this.settings.jwksRefreshMs,
    });
  }
}
