import type { MessageShape } from '@bufbuild/protobuf';
import type { SavedSearchSchema, SearchPageSchema } from '@kw/contracts';
import type { SavedSearchDto } from './dto/saved-search.dto.js';
import type { SearchResultsDto } from './dto/search.dto.js';

/** Contract messages as the HTTP answers show them. */

/** A contract message as plain JSON: protobuf-es messages carry a `$typeName` the HTTP answer must not show. */
export function plainJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(plainJson) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== '$typeName')
      .map(([key, v]) => [key, plainJson(v)]),
  ) as T;
}

/** The contract's search page as the REST body. */
export function resultsJson(page: MessageShape<typeof SearchPageSchema> | undefined): SearchResultsDto {
  return {
    success: true,
    results: (page?.hits ?? []).map((h) => ({
      kind: 'fragment' as const,
      fragmentId: h.fragmentId,
      workspaceId: h.workspaceId,
      title: h.title,
      type: h.type,
      tags: h.tags,
      snippet: h.snippet,
      score: h.score,
      matchedBy: h.matchedBy,
      createdAt: h.createdAt,
      updatedAt: h.updatedAt,
    })),
    total: page?.totalCount ?? 0,
    limit: page?.limit ?? 0,
    offset: page?.offset ?? 0,
    mode: page?.mode ?? 'hybrid',
  };
}

/** A saved search as the REST body. */
export function savedJson(saved: MessageShape<typeof SavedSearchSchema>): SavedSearchDto {
  const s = saved.search;
  return {
    id: saved.id,
    workspaceId: saved.workspaceId,
    name: saved.name,
    q: s?.query ?? '',
    mode: s?.mode ?? 'hybrid',
    types: s?.types ?? [],
    tags: s?.tags ?? [],
    ...(s?.collectionId ? { collectionId: s.collectionId } : {}),
    createdAt: saved.createdAt,
  };
}
