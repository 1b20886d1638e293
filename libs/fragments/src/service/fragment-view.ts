import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CollectionSchema, FragmentSchema, FragmentTypeSchema } from '@kw/contracts';
import type { CollectionRow, FragmentRow, FragmentTypeRow } from '../persistence/rows.js';
import { parseFrontmatter } from './frontmatter.js';

export const iso = (date: Date | null | undefined): string => (date ? date.toISOString() : '');

export function fragmentView(row: FragmentRow): MessageInitShape<typeof FragmentSchema> {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    fragmentTypeId: row.fragmentTypeId,
    title: row.title,
    content: row.content,
    frontmatterJson: JSON.stringify(parseFrontmatter(row.content)),
    summary: row.summary ?? undefined,
    tags: row.tags,
    key: row.key ?? undefined,
    status: row.status,
    createdVia: row.createdVia,
    version: row.version,
    enrichmentJson: JSON.stringify(row.enrichment ?? {}),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    createdBy: row.createdBy,
    archivedAt: iso(row.archivedAt),
    enhanceTags: row.enhanceTags,
  };
}

export function fragmentTypeView(row: FragmentTypeRow): MessageInitShape<typeof FragmentTypeSchema> {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    key: row.key,
    name: row.name,
    description: row.description,
    isDefault: row.isDefault,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export function collectionView(row: CollectionRow, fragmentCount: number): MessageInitShape<typeof CollectionSchema> {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    description: row.description,
    createdBy: row.createdBy,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    fragmentCount,
  };
}
