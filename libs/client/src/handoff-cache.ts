import type { Handoff } from './types.js';

/** Renew this long before a handoff token expires, so a request never arrives with a dead token. */
export const RENEW_BEFORE_MS = 30_000;

/** Handoff tokens per workspace, kept until shortly before they expire. */
export class HandoffCache {
  private readonly entries = new Map<string, Handoff>();

  constructor(private readonly now: () => number = Date.now) {}

  get(workspaceId: string): Handoff | undefined {
    const entry = this.entries.get(workspaceId);
    if (!entry) return undefined;
    // A token shorter-lived than the margin is used until its last quarter instead.
    const margin = Math.min(RENEW_BEFORE_MS, entry.expiresIn * 250);
    if (Date.parse(entry.expiresAt) - margin <= this.now()) {
      this.entries.delete(workspaceId);
      return undefined;
    }
    return entry;
  }

  set(handoff: Handoff): void {
    this.entries.set(handoff.workspaceId, handoff);
  }

  forget(workspaceId: string): void {
    this.entries.delete(workspaceId);
  }
}
