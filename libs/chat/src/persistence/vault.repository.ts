import { Inject, Injectable } from '@nestjs/common';
import { ControlPrisma, createBelowCap } from '@kw/platform-persistence';
import { CHAT_DB, type ChatDb } from './chat-database.js';
import type { SealedValue, SecretAccessRow, SecretRow } from './rows.js';

/** Thrown when a user already has a secret of that name. */
export class SecretNameTaken extends Error {}

const isUniqueViolation = (err: unknown) =>
  err instanceof ControlPrisma.PrismaClientKnownRequestError && err.code === 'P2002';

export type NewSecret = Omit<SecretRow, 'createdAt' | 'updatedAt'>;

export interface SecretChanges {
  name?: string;
  provider?: string;
  description?: string;
  sealed?: SealedValue;
}

/** The vault's secrets and the log of every read of their values. Always scoped to the owner. */
@Injectable()
export class VaultRepository {
  constructor(@Inject(CHAT_DB) private readonly db: ChatDb) {}

  listOf(userId: string): Promise<SecretRow[]> {
    return this.db.vaultSecret.findMany({ where: { userId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  /** The owner's secret, or null for anyone else's: the caller cannot tell the two apart. */
  findOwned(userId: string, id: string): Promise<SecretRow | null> {
    return this.db.vaultSecret.findFirst({ where: { id, userId } });
  }

  /** The owner's newest `api-key` secret for a provider. */
  findProviderKey(userId: string, provider: string): Promise<SecretRow | null> {
    return this.db.vaultSecret.findFirst({
      where: { userId, type: 'api-key', provider },
      orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
    });
  }

  /**
   * Stores the secret unless its owner already keeps `max` (null then, nothing written). Creates
   * are serialised per owner (an advisory lock in the transaction), so the cap holds under
   * concurrency. A name the owner already uses throws SecretNameTaken.
   */
  async insertWithin(secret: NewSecret, max: number): Promise<SecretRow | null> {
    try {
      return await this.db.$transaction((tx) =>
        createBelowCap(
          tx,
          {
            lockKey: `vault-of:${secret.userId}`,
            max,
            count: () => tx.vaultSecret.count({ where: { userId: secret.userId } }),
          },
          () => tx.vaultSecret.create({ data: secret }),
        ),
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw new SecretNameTaken();
      throw err;
    }
  }

  /** Applies the changes to the owner's secret; null when there is no such secret. */
  async update(userId: string, id: string, changes: SecretChanges): Promise<SecretRow | null> {
    const { sealed, ...fields } = changes;
    try {
      const { count } = await this.db.vaultSecret.updateMany({
        where: { id, userId },
        data: { ...fields, ...(sealed ?? {}), updatedAt: new Date() },
      });
      return count === 0 ? null : this.findOwned(userId, id);
    } catch (err) {
      if (isUniqueViolation(err)) throw new SecretNameTaken();
      throw err;
    }
  }

  async delete(userId: string, id: string): Promise<boolean> {
    const { count } = await this.db.vaultSecret.deleteMany({ where: { id, userId } });
    return count > 0;
  }

  recordAccess(access: { secretId: string; userId: string; secretName: string; purpose: string; detail: string }) {
    return this.db.vaultAccess.create({ data: access });
  }

  accessesOf(userId: string, secretId: string | undefined, limit: number): Promise<SecretAccessRow[]> {
    return this.db.vaultAccess.findMany({
      where: { userId, ...(secretId ? { secretId } : {}) },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take: limit,
    });
  }

  /** Secrets whose data key is wrapped by another master key than `currentVersion`, a page at a time. */
  findNeedingRewrap(currentVersion: string, limit: number): Promise<SecretRow[]> {
    return this.db.vaultSecret.findMany({
      where: { keyVersion: { not: currentVersion } },
      orderBy: { id: 'asc' },
      take: limit,
    });
  }

  /** Replaces a wrapped data key, only if the row still has the one that was read (no lost update). */
  async replaceWrappedKey(id: string, from: SealedValue, to: SealedValue): Promise<boolean> {
    const { count } = await this.db.vaultSecret.updateMany({
      where: { id, wrappedKey: from.wrappedKey, keyVersion: from.keyVersion, ciphertext: from.ciphertext },
      data: { wrappedKey: to.wrappedKey, keyVersion: to.keyVersion },
    });
    return count > 0;
  }
}
