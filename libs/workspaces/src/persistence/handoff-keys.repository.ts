import { Inject, Injectable } from '@nestjs/common';
import type { JWK } from 'jose';
import type { SealedColumn } from '@kw/platform-secret-box';
import { WORKSPACES_DB, type WorkspacesDb } from './workspaces-database.js';

/** One signing key as stored: the public JWK in clear, the private JWK sealed. */
export interface StoredHandoffKey {
  kid: string;
  publicJwk: JWK;
  privateJwkSealed: string;
  createdAt: Date;
}

/** Where keys live (the control-plane table; an in-memory one in unit tests). */
export interface HandoffKeyStore {
  /** Every key not withdrawn, newest first. */
  all(): Promise<StoredHandoffKey[]>;
  insert(key: StoredHandoffKey): Promise<void>;
  /** Withdraws every key but `kid`: answers the kids withdrawn. */
  revokeAllExcept(kid: string, at: Date): Promise<string[]>;
}

/** The table `control.handoff_signing_keys`. */
@Injectable()
export class HandoffKeysRepository implements HandoffKeyStore {
  constructor(@Inject(WORKSPACES_DB) private readonly db: WorkspacesDb) {}

  async all(): Promise<StoredHandoffKey[]> {
    const rows = await this.db.handoffSigningKey.findMany({
      where: { revokedAt: null },
      orderBy: [{ createdAt: 'desc' }, { kid: 'asc' }],
    });
    return rows.map((r) => ({
      kid: r.kid,
      publicJwk: r.publicJwk as JWK,
      privateJwkSealed: r.privateJwkSealed,
      createdAt: r.createdAt,
    }));
  }

  async insert(key: StoredHandoffKey): Promise<void> {
    await this.db.handoffSigningKey.create({
      data: {
        kid: key.kid,
        publicJwk: key.publicJwk as object,
        privateJwkSealed: key.privateJwkSealed,
        createdAt: key.createdAt,
      },
    });
  }

  async revokeAllExcept(kid: string, at: Date): Promise<string[]> {
    return this.db.$transaction(async (tx) => {
      const withdrawn = await tx.handoffSigningKey.findMany({
        where: { revokedAt: null, kid: { not: kid } },
        select: { kid: true },
      });
      await tx.handoffSigningKey.updateMany({
        where: { kid: { in: withdrawn.map((k) => k.kid) } },
        data: { revokedAt: at },
      });
      return withdrawn.map((k) => k.kid);
    });
  }

  /** The private keys, sealed, as a column to re-seal (a master key rotation), withdrawn keys too. */
  get sealedPrivateKeys(): SealedColumn {
    const db = this.db;
    return {
      async notUnder(prefix, afterId, limit) {
        const rows = await db.handoffSigningKey.findMany({
          where: { NOT: { privateJwkSealed: { startsWith: prefix } }, ...(afterId ? { kid: { gt: afterId } } : {}) },
          select: { kid: true, privateJwkSealed: true },
          orderBy: { kid: 'asc' },
          take: limit,
        });
        return rows.map((r) => ({ id: r.kid, sealed: r.privateJwkSealed }));
      },
      async replace(kid, from, to) {
        const { count } = await db.handoffSigningKey.updateMany({
          where: { kid, privateJwkSealed: from },
          data: { privateJwkSealed: to },
        });
        return count > 0;
      },
    };
  }
}
