import { Inject, Injectable } from '@nestjs/common';
import { workspacesTable, WORKSPACES_DB, type WorkspacesDb, type WorkspacesTx } from './workspaces-database.js';

/** One entry of a zone's revocation list: null ids match any token (docs/hosted-zones.md#revocation). */
export interface RevocationEntry {
  userId: string | null;
  workspaceId: string | null;
  credentialId: string | null;
  revokedAt: Date;
}

/** One handoff: who, through which credential, for which zone, valid until when. */
export interface Issuance {
  hostedZoneId: string;
  userId: string;
  credentialId: string;
  expiresAt: Date;
}

/** Rows older than this are of no use to any Leaf: the longest handoff token lifetime (3600 s) and a margin. */
const KEEP_MS = 2 * 60 * 60 * 1000;
/** A token still counts this long after its `exp`: the Leaves' clock tolerance, and a margin. */
const EXPIRY_MARGIN_MS = 60_000;

/**
 * Inside a membership change's transaction: the member's handoff tokens for a Leaf-backed
 * workspace are revoked in the same commit as the change (nothing for a Cloud workspace).
 * Without a user (an archive), every handoff token of the workspace issued until `at`.
 */
export async function recordWorkspaceRevocation(
  tx: WorkspacesTx,
  workspaceId: string,
  userId: string | null,
  at: Date,
): Promise<void> {
  const workspace = await tx.workspace.findUnique({ where: { id: workspaceId }, select: { hostedZoneId: true } });
  if (!workspace?.hostedZoneId) return;
  await tx.handoffRevocation.create({
    data: { hostedZoneId: workspace.hostedZoneId, userId, workspaceId, revokedAt: at },
  });
}

/**
 * Inside the change that makes a public Leaf-backed workspace private: the handoff tokens of
 * everyone who read it as a non-member (subscribers, and any signed-in user: a public workspace
 * is readable by all) are revoked in the same commit; members keep theirs. Issuances name the
 * zone, not the workspace, so each non-member holding live tokens at the zone gets an entry
 * for this workspace, which matches nothing else.
 */
export async function recordReadersRevocation(tx: WorkspacesTx, workspaceId: string, at: Date): Promise<void> {
  const workspace = await tx.workspace.findUnique({
    where: { id: workspaceId },
    select: { hostedZoneId: true, visibility: true },
  });
  if (!workspace?.hostedZoneId || workspace.visibility !== 'public') return;
  const hostedZoneId = workspace.hostedZoneId;
  const holders = await tx.handoffIssuance.findMany({
    where: { hostedZoneId, expiresAt: { gt: new Date(at.getTime() - EXPIRY_MARGIN_MS) } },
    select: { userId: true },
    distinct: ['userId'],
  });
  const userIds = holders.map((h) => h.userId);
  if (userIds.length === 0) return;
  const members = await tx.workspaceMember.findMany({
    where: { workspaceId, userId: { in: userIds } },
    select: { userId: true },
  });
  const memberIds = new Set(members.map((m) => m.userId));
  const readers = userIds.filter((id) => !memberIds.has(id));
  if (readers.length > 0)
    await tx.handoffRevocation.createMany({
      data: readers.map((userId) => ({ hostedZoneId, userId, workspaceId, revokedAt: at })),
    });
}

/**
 * `control.handoff_revocations`, what the Leaves must refuse before handoff tokens expire, and
 * `control.handoff_issuances`, which zones hold whose tokens: an account or a credential is
 * revoked only at the zones where it has live handoff tokens, so no zone learns of others'.
 */
@Injectable()
export class HandoffRevocationsRepository {
  constructor(@Inject(WORKSPACES_DB) private readonly db: WorkspacesDb) {}

  /**
   * A handoff token was issued: its zone, user and credential hold live tokens until `expiresAt`,
   * or until a token issued before expires, if later (one issued under a longer
   * HANDOFF_TOKEN_TTL_SECONDS): the row keeps the latest expiry of any token, not of the last one.
   */
  async noteIssuance(issuance: Issuance): Promise<void> {
    await noteIssuanceIn(this.db, issuance);
  }

  /**
   * `noteIssuance` for a reader who is not a member (a public workspace's subscriber or any
   * signed-in user), only while the workspace is still public: false (nothing noted) once it is
   * not. The workspace's row is held shared until the issuance commits, and making it private
   * locks that row before it reads the issuances (WorkspacesRepository.update): the issuance is
   * either noted before and its reader revoked there, or sees the workspace private and is refused.
   */
  async noteReaderIssuance(issuance: Issuance, workspaceId: string): Promise<boolean> {
    const { hostedZoneId, userId, credentialId, expiresAt } = issuance;
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Array<{ visibility: string }>>`
        SELECT visibility FROM ${workspacesTable} WHERE id = ${workspaceId}::uuid FOR SHARE`;
      if (rows[0]?.visibility !== 'public') return false;
      await noteIssuanceIn(tx, { hostedZoneId, userId, credentialId, expiresAt });
      return true;
    });
  }

  /**
   * Accounts disabled and credentials revoked at `at`: an entry for each zone where they hold
   * tokens that have not expired. Rows past any token's lifetime go.
   */
  async record(revoked: { userIds: string[]; credentialIds: string[] }, at: Date): Promise<void> {
    if (revoked.userIds.length + revoked.credentialIds.length > 0) {
      const live = await this.db.handoffIssuance.findMany({
        where: {
          expiresAt: { gt: new Date(at.getTime() - EXPIRY_MARGIN_MS) },
          OR: [{ userId: { in: revoked.userIds } }, { credentialId: { in: revoked.credentialIds } }],
        },
      });
      const entries = new Map<string, { hostedZoneId: string; userId?: string; credentialId?: string }>();
      for (const i of live) {
        if (revoked.userIds.includes(i.userId))
          entries.set(`${i.hostedZoneId} u ${i.userId}`, { hostedZoneId: i.hostedZoneId, userId: i.userId });
        if (revoked.credentialIds.includes(i.credentialId))
          entries.set(`${i.hostedZoneId} c ${i.credentialId}`, {
            hostedZoneId: i.hostedZoneId,
            credentialId: i.credentialId,
          });
      }
      if (entries.size > 0)
        await this.db.handoffRevocation.createMany({
          data: [...entries.values()].map((e) => ({ ...e, revokedAt: at })),
        });
    }
    const old = new Date(at.getTime() - KEEP_MS);
    await this.db.handoffRevocation.deleteMany({ where: { revokedAt: { lt: old } } });
    await this.db.handoffIssuance.deleteMany({ where: { expiresAt: { lt: old } } });
  }

  /**
   * The zone's entries that may still match a token, the latest per key, oldest first: those
   * revoked after `since` (the current token lifetime ago), and older ones while the zone holds a
   * token they match that has not expired (`exp` after `liveAfter`): one issued under a longer
   * HANDOFF_TOKEN_TTL_SECONDS than the current one. An entry matches the tokens of its user, of
   * its credential, or (a workspace's entry) any user's; an issuance row holds the latest expiry
   * of its user's and credential's tokens at the zone, so an entry is kept until every token it
   * covers has expired. Rows go after two hours (KEEP_MS), past any token's lifetime.
   */
  forZone(zoneId: string, since: Date, liveAfter: Date): Promise<RevocationEntry[]> {
    return this.db.$queryRaw<RevocationEntry[]>`
      SELECT r.user_id::text AS "userId", r.workspace_id::text AS "workspaceId", r.credential_id AS "credentialId",
             max(r.revoked_at) AS "revokedAt"
        FROM control.handoff_revocations r
       WHERE r.hosted_zone_id = ${zoneId}::uuid
         AND (r.revoked_at > ${since}
              OR EXISTS (SELECT 1 FROM control.handoff_issuances i
                          WHERE i.hosted_zone_id = r.hosted_zone_id AND i.expires_at > ${liveAfter}
                            AND (r.user_id IS NULL OR i.user_id = r.user_id)
                            AND (r.credential_id IS NULL OR i.credential_id = r.credential_id)))
       GROUP BY r.user_id, r.workspace_id, r.credential_id
       ORDER BY max(r.revoked_at), r.user_id, r.workspace_id, r.credential_id`;
  }
}

/** Upserts an issuance keeping the later expiry: a token issued under a longer lifetime still counts. */
async function noteIssuanceIn(db: WorkspacesDb | WorkspacesTx, issuance: Issuance): Promise<void> {
  const { hostedZoneId, userId, credentialId, expiresAt } = issuance;
  await db.$executeRaw`
    INSERT INTO control.handoff_issuances (hosted_zone_id, user_id, credential_id, expires_at)
    VALUES (${hostedZoneId}::uuid, ${userId}::uuid, ${credentialId}, ${expiresAt})
    ON CONFLICT (hosted_zone_id, user_id, credential_id)
    DO UPDATE SET expires_at = GREATEST(control.handoff_issuances.expires_at, EXCLUDED.expires_at)`;
}
