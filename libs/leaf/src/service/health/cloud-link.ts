import { Inject, Injectable, Optional } from '@nestjs/common';
import { LEAF_CLOCK } from '../../leaf-settings.js';

/** How the last heartbeat ended, when it failed. */
export type LinkFailure = 'unreachable' | 'refused';

export interface LinkState {
  /** The last heartbeat the Cloud answered (ms). */
  lastSuccessAt?: number;
  /** The last heartbeat that failed (ms), and how. */
  lastFailureAt?: number;
  failure?: LinkFailure;
}

/** What the heartbeats learned of the Cloud: recorded by the heartbeat loop, read by health and metrics. */
@Injectable()
export class CloudLink {
  private current: LinkState = {};
  private readonly now: () => number;

  constructor(@Optional() @Inject(LEAF_CLOCK) clock?: () => number) {
    this.now = clock ?? Date.now;
  }

  succeeded(): void {
    this.current = { ...this.current, lastSuccessAt: this.now() };
  }

  failed(failure: LinkFailure): void {
    this.current = { ...this.current, lastFailureAt: this.now(), failure };
  }

  state(): LinkState {
    return this.current;
  }
}
