import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';
import { LEAF_CLOCK } from '../../leaf-settings.js';
import { LeafStateRepository } from '../../persistence/leaf-state.repository.js';
import {
  parseRevocations,
  RevocationList,
  revocationsJson,
  type HandoffFacts,
  type Revocation,
} from './revocation-list.js';

/**
 * The handoff tokens this Leaf refuses before they expire: the Cloud's list, received with
 * every heartbeat (it replaces the previous one) and persisted, so a Leaf restarted while the
 * Cloud is down still refuses what it knew to be revoked. Matching is local and in memory.
 */
@Injectable()
export class RevokedHandoffs {
  private list = RevocationList.empty;
  private receivedAt: number | undefined;
  private readonly now: () => number;

  constructor(
    private readonly store: LeafStateRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    @Optional() @Inject(LEAF_CLOCK) clock?: () => number,
  ) {
    this.now = clock ?? Date.now;
  }

  /** The persisted list (start-up), until a heartbeat replaces it. */
  usePersisted(): void {
    const enrollment = this.store.current();
    const entries = parseRevocations(enrollment?.revocations);
    if (!entries) return;
    this.list = new RevocationList(entries);
    this.receivedAt = enrollment?.revocationsFetchedAt?.getTime();
  }

  /** The heartbeat's list; written to the database only when it differs from the current one. */
  async replace(entries: Revocation[]): Promise<void> {
    const changed = JSON.stringify(revocationsJson(entries)) !== JSON.stringify(revocationsJson(this.list.entries));
    this.list = new RevocationList(entries);
    this.receivedAt = this.now();
    if (!changed) return;
    this.logger.debug({ entries: entries.length }, 'handoff revocations updated');
    await this.store
      .saveRevocations(revocationsJson(entries), new Date(this.receivedAt))
      .catch((err: unknown) => this.logger.warn({ err }, 'could not persist the handoff revocations'));
  }

  /** The entry that revokes this token, if any. */
  match(token: HandoffFacts): Revocation | undefined {
    return this.list.match(token);
  }

  get size(): number {
    return this.list.size;
  }

  /** When the current list came from the Cloud (ms), undefined before any. */
  get updatedAt(): number | undefined {
    return this.receivedAt;
  }
}
