import type { Collection, EnrichFragmentResponse, Fragment, FragmentType } from '@kw/contracts';
import type { CollectionDto, FragmentTypeDto } from './dto/collection.dto.js';
import type { EnrichFragmentResponseDto } from './dto/enrichment.dto.js';
import type { FragmentDto } from './dto/fragment.dto.js';

const orNull = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);

export function fragmentJson(f: Fragment): FragmentDto {
  return {
    id: f.id,
    workspaceId: f.workspaceId,
    fragmentTypeId: f.fragmentTypeId,
    title: f.title,
    content: f.content,
    frontmatter: JSON.parse(f.frontmatterJson || 'null') as Record<string, unknown> | null,
    summary: f.summary ?? null,
    tags: f.tags,
    enhanceTags: f.enhanceTags,
    key: f.key ?? null,
    status: f.status,
    createdVia: f.createdVia,
    version: f.version,
    enrichment: JSON.parse(f.enrichmentJson || '{}') as Record<string, unknown>,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
    createdBy: f.createdBy,
    archivedAt: orNull(f.archivedAt),
  };
}

export function fragmentTypeJson(t: FragmentType): FragmentTypeDto {
  return {
    id: t.id,
    workspaceId: t.workspaceId,
    key: t.key,
    name: t.name,
    description: t.description,
    isDefault: t.isDefault,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

export function collectionJson(c: Collection): CollectionDto {
  return {
    id: c.id,
    workspaceId: c.workspaceId,
    name: c.name,
    description: c.description,
    createdBy: c.createdBy,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    fragmentCount: c.fragmentCount,
  };
}

export function enrichmentRequestJson(res: EnrichFragmentResponse): EnrichFragmentResponseDto {
  return {
    id: res.fragmentId,
    status: res.status,
    steps: res.steps,
    version: res.version,
    enrichment: JSON.parse(res.enrichmentJson || '{}') as Record<string, unknown>,
  };
}
