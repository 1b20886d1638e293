import { Inject, Injectable } from '@nestjs/common';
import type { JWK } from 'jose';
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
  /** Every key, newest first. */
  all(): Promise<StoredHandoffKey[]>;
  insert(key: StoredHandoffKey): Promise<void>;
}

/** The table `control.handoff_signing_keys`. */
@Injectable()
export class HandoffKeysRepository implements HandoffKeyStore {
  constructor(@Inject(WORKSPACES_DB) private readonly db: WorkspacesDb) {}

  async all(): Promise<StoredHandoffKey[]> {
    const rows = await this.db.handoffSigningKey.findMany({ orderBy: [{ createdAt: 'desc' }, { kid: 'asc' }] });
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
}
