import type { MessageInitShape } from '@bufbuild/protobuf';
import type { WorkspaceSchema } from '@kw/contracts';
import type { Relation } from '@kw/platform-access-policy';
import type { WorkspaceRow } from '../persistence/rows.js';

export type WorkspaceMessage = MessageInitShape<typeof WorkspaceSchema>;

export const iso = (date: Date | null | undefined): string => (date ? date.toISOString() : '');

/** A workspace row as the contract carries it, with the caller's relation. */
export function workspaceView(row: WorkspaceRow, relation: Relation): WorkspaceMessage {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    visibility: row.visibility,
    status: row.status,
    hostedZoneId: row.hostedZoneId ?? '',
    endpointUrl: row.hostedZone?.endpointUrl ?? '',
    createdBy: row.createdBy,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    archivedAt: iso(row.archivedAt),
    relation,
  };
}
