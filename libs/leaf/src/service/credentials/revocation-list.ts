import { isUuid } from '@kw/platform-ids';

/**
 * One entry of the Cloud's revocation list (docs/hosted-zones.md#revocation): a handoff token
 * is refused when it carries every id the entry names and was issued no later than the second
 * after `revokedAt`.
 */
export interface Revocation {
  /** Matches `sub`. */
  userId?: string;
  /** Matches `kw_ws`. */
  workspaceId?: string;
  /** Matches `kw_cred`, the Cloud credential the token was issued through. */
  credentialId?: string;
  /** Milliseconds since the epoch. */
  revokedAt: number;
}

/** What a handoff token says about itself, for the match. */
export interface HandoffFacts {
  userId: string;
  workspaceId: string;
  credentialId?: string;
  /** `iat`, in seconds. */
  issuedAt: number;
}

/**
 * `iat` is whole seconds, and the Cloud takes a revocation's time a moment before it commits
 * (from a replica whose clock may differ slightly from the one that signs): tokens issued up
 * to the next second are refused too. A client refused that way asks for a new token.
 */
const AFTER_SECONDS = 1;

/** Whether the entry revokes the token. An entry naming no id revokes nothing. */
export function revokes(entry: Revocation, token: HandoffFacts): boolean {
  if (!entry.userId && !entry.workspaceId && !entry.credentialId) return false;
  if (entry.userId && entry.userId !== token.userId) return false;
  if (entry.workspaceId && entry.workspaceId !== token.workspaceId) return false;
  if (entry.credentialId && entry.credentialId !== token.credentialId) return false;
  return token.issuedAt <= Math.floor(entry.revokedAt / 1000) + AFTER_SECONDS;
}

/**
 * Entries read from JSON (the heartbeat's answer or the persisted copy): `{userId,
 * workspaceId, credentialId, revokedAt}` with null or absent ids; malformed entries are
 * dropped, and a value that is not a list is undefined.
 */
export function parseRevocations(value: unknown): Revocation[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const entries: Revocation[] = [];
  for (const item of value as unknown[]) {
    if (!item || typeof item !== 'object') continue;
    const raw = item as Record<string, unknown>;
    const revokedAt = typeof raw.revokedAt === 'string' ? Date.parse(raw.revokedAt) : Number.NaN;
    const userId = optionalId(raw.userId, isUuid);
    const workspaceId = optionalId(raw.workspaceId, isUuid);
    const credentialId = optionalId(raw.credentialId, (v) => typeof v === 'string' && v.length <= 200);
    if (Number.isNaN(revokedAt) || userId === null || workspaceId === null || credentialId === null) continue;
    if (!userId && !workspaceId && !credentialId) continue;
    entries.push({
      revokedAt,
      ...(userId && { userId }),
      ...(workspaceId && { workspaceId }),
      ...(credentialId && { credentialId }),
    });
  }
  return entries;
}

/** The JSON form `parseRevocations` reads back. */
export function revocationsJson(entries: readonly Revocation[]): object[] {
  return entries.map((e) => ({
    userId: e.userId ?? null,
    workspaceId: e.workspaceId ?? null,
    credentialId: e.credentialId ?? null,
    revokedAt: new Date(e.revokedAt).toISOString(),
  }));
}

/** undefined when absent, null when present but malformed. */
function optionalId(value: unknown, valid: (v: unknown) => boolean): string | undefined | null {
  if (value === undefined || value === null || value === '') return undefined;
  return valid(value) ? (value as string) : null;
}

/**
 * The current list, indexed by the ids a token always carries (user, credential) so a request
 * checks only the entries that could match it.
 */
export class RevocationList {
  static readonly empty = new RevocationList([]);
  private readonly byUser = new Map<string, Revocation[]>();
  private readonly byCredential = new Map<string, Revocation[]>();
  private readonly others: Revocation[] = [];

  constructor(readonly entries: readonly Revocation[]) {
    for (const entry of entries) {
      if (entry.userId) push(this.byUser, entry.userId, entry);
      else if (entry.credentialId) push(this.byCredential, entry.credentialId, entry);
      else this.others.push(entry);
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /** The first entry that revokes the token, if any. */
  match(token: HandoffFacts): Revocation | undefined {
    const candidates = [
      ...(this.byUser.get(token.userId) ?? []),
      ...(token.credentialId ? (this.byCredential.get(token.credentialId) ?? []) : []),
      ...this.others,
    ];
    return candidates.find((entry) => revokes(entry, token));
  }
}

function push(map: Map<string, Revocation[]>, key: string, entry: Revocation): void {
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}
