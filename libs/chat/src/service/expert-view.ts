import type { ExpertRow } from '../persistence/experts.repository.js';

export const expertView = (row: ExpertRow) => ({
  id: row.id,
  name: row.name,
  workspaceId: row.workspaceId,
  systemPrompt: row.systemPrompt,
  enabledTools: row.enabledTools,
  routingKeywords: row.routingKeywords,
  modelPreference: row.modelPreference,
  createdBy: row.createdBy,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
