import type { EmbedConfigRow, EmbedKeyRow } from '../persistence/embed-configs.repository.js';

export const embedConfigView = (row: EmbedConfigRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  name: row.name,
  status: row.status,
  model: row.model,
  modelLocked: row.modelLocked,
  features: row.features,
  mainExpertId: row.mainExpertId ?? '',
  stateless: row.stateless,
  systemPrompt: row.systemPrompt,
  defaultContext: row.defaultContext,
  trustedIssuer: row.trustedIssuer ?? undefined,
  createdBy: row.createdBy,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** Key metadata: never the token, its hash or the scoped token. */
export const embedKeyView = (row: EmbedKeyRow) => ({
  id: row.id,
  configId: row.configId,
  label: row.label,
  allowedOrigins: row.allowedOrigins,
  public: row.public,
  expiresAt: row.expiresAt?.toISOString() ?? '',
  tokenPrefix: row.tokenPrefix,
  hasScopedToken: row.scopedTokenSealed !== null,
  revokedAt: row.revokedAt?.toISOString() ?? '',
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
