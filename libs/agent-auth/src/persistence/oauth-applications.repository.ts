import { Inject, Injectable } from '@nestjs/common';
import { createBelowCap, retryOnConflict, type ControlPrisma } from '@kw/platform-persistence';
import { IDENTITY_DB, type IdentityDb } from './identity-database.js';
import { revokeGrants } from './agent-grants.repository.js';

export type ApplicationRow = ControlPrisma.OAuthApplicationModel;

export interface NewApplication {
  ownerId: string | null;
  name: string;
  description: string;
  homepageUrl: string | null;
  redirectUris: string[];
  clientType: 'confidential' | 'public';
  tokenEndpointAuthMethod: string;
  scopes: string[];
  secretHash: string | null;
  secretPrefix: string | null;
  registeredFrom: string | null;
}

export type ApplicationChanges = Partial<
  Pick<ApplicationRow, 'name' | 'description' | 'homepageUrl' | 'redirectUris' | 'scopes' | 'status'>
>;

const DAY_MS = 86_400_000;

/**
 * A registration, or the refusal of one over the limit: `limitedSince` is when the registration
 * whose leaving the window frees a place was made (absent when none is within it).
 */
export type RegistrationOutcome = { row: ApplicationRow } | { row?: undefined; limitedSince?: Date };

/** OAuth applications (clients). Only hashes of client secrets are stored. */
@Injectable()
export class OAuthApplicationsRepository {
  constructor(@Inject(IDENTITY_DB) private readonly db: IdentityDb) {}

  create(application: NewApplication): Promise<ApplicationRow> {
    return this.db.oAuthApplication.create({ data: application });
  }

  findById(id: string): Promise<ApplicationRow | null> {
    return this.db.oAuthApplication.findUnique({ where: { id } });
  }

  findOwned(id: string, ownerId: string): Promise<ApplicationRow | null> {
    return this.db.oAuthApplication.findFirst({ where: { id, ownerId } });
  }

  listOwned(ownerId: string): Promise<ApplicationRow[]> {
    return this.db.oAuthApplication.findMany({ where: { ownerId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
  }

  update(id: string, changes: ApplicationChanges): Promise<ApplicationRow> {
    return this.db.oAuthApplication.update({ where: { id }, data: changes });
  }

  /** A new current secret; the old one stays valid until `previousUntil` (or not at all). */
  rotateSecret(
    id: string,
    secretHash: string,
    secretPrefix: string,
    previousUntil: Date | null,
  ): Promise<ApplicationRow> {
    return this.db.$transaction(async (tx) => {
      const current = await tx.oAuthApplication.findUniqueOrThrow({ where: { id } });
      return tx.oAuthApplication.update({
        where: { id },
        data: {
          secretHash,
          secretPrefix,
          previousSecretHash: previousUntil ? current.secretHash : null,
          previousSecretExpiresAt: previousUntil,
        },
      });
    });
  }

  /** Deletes the application and revokes every grant made through it. */
  async delete(id: string, now: Date): Promise<string[]> {
    return retryOnConflict(() =>
      this.db.$transaction(async (tx) => {
        // Its row locked first: a code exchange in flight (which key-share locks it) commits its
        // grant before the revocation below reads the grants, and a later one finds no application.
        await tx.$queryRaw`SELECT id FROM control.oauth_applications WHERE id = ${id}::uuid FOR UPDATE`;
        const ids = await revokeGrants(tx, { applicationId: id }, 'application deleted', now);
        await tx.oAuthAuthorization.deleteMany({ where: { applicationId: id } });
        await tx.oAuthApplication.delete({ where: { id } });
        return ids;
      }),
    );
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.oAuthApplication.updateMany({ where: { id }, data: { lastUsedAt: at } });
  }

  /**
   * Creates a dynamically registered client unless `max` were registered from its address since
   * `since` (the RFC 7591 rate limit; nothing written then). Registrations from one address
   * are serialised (an advisory lock in the transaction), so a burst cannot pass the limit.
   */
  createRegisteredWithin(
    application: NewApplication & { registeredFrom: string },
    since: Date,
    max: number,
  ): Promise<RegistrationOutcome> {
    const registeredFrom = application.registeredFrom;
    const within = { registeredFrom, createdAt: { gte: since } };
    return this.db.$transaction(async (tx) => {
      const row = await createBelowCap(
        tx,
        {
          lockKey: `registrations-from:${registeredFrom}`,
          max,
          count: () => tx.oAuthApplication.count({ where: within }),
        },
        () => tx.oAuthApplication.create({ data: application }),
      );
      if (row) return { row };
      // The window holds `max` or more: a place frees when the max-th newest of them leaves it.
      const [edge] = await tx.oAuthApplication.findMany({
        where: within,
        orderBy: { createdAt: 'desc' },
        skip: Math.max(max - 1, 0),
        take: 1,
        select: { createdAt: true },
      });
      return { limitedSince: edge?.createdAt };
    });
  }

  /**
   * Dynamically registered clients expire unused: never used within a day of registering, or
   * not used for 90 days. Up to `limit` at a time; how many went.
   */
  sweepUnused(now: Date, limit: number): Promise<number> {
    return this.db.$executeRaw`DELETE FROM control.oauth_applications WHERE id IN (
      SELECT id FROM control.oauth_applications
      WHERE owner_id IS NULL AND (
        (last_used_at IS NULL AND created_at < ${new Date(now.getTime() - DAY_MS)})
        OR last_used_at < ${new Date(now.getTime() - 90 * DAY_MS)})
      AND NOT EXISTS (SELECT 1 FROM control.agent_grants g WHERE g.application_id = oauth_applications.id AND g.revoked_at IS NULL)
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
  }
}
