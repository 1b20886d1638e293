import type { SecretAccessRow, SecretRow } from '../persistence/rows.js';

/** A secret's metadata as the contract carries it: never the sealed value. */
export const secretView = (row: SecretRow) => ({
  id: row.id,
  name: row.name,
  type: row.type,
  provider: row.provider,
  description: row.description,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const secretAccessView = (row: SecretAccessRow) => ({
  id: row.id,
  secretId: row.secretId,
  secretName: row.secretName,
  purpose: row.purpose,
  detail: row.detail,
  at: row.at.toISOString(),
});
