import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { commaList, OptionalInt } from '@kw/platform-http';
import {
  RETRIEVAL_DEPTH,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_MODES,
  SEARCH_QUERY_MAX,
} from '../../search-limits.js';

/** Query parameters shared by the search routes (filters are comma-separated lists). */
export class SearchFiltersDto {
  @ApiProperty({
    minLength: 1,
    maxLength: SEARCH_QUERY_MAX,
    description:
      'What to find. A sentence or keywords match fragments holding any of the words, ranked by BM25; with search syntax ("a phrase", -excluded, OR) keyword matching is precise (web-search semantics), ' +
      'and in every mode a hit holds the quoted phrases and none of the excluded words (exclusions hold for the whole query, whatever its ORs). Read in Unicode NFC; accents are significant. docs/search.md',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(SEARCH_QUERY_MAX)
  q!: string;
  @ApiPropertyOptional({ enum: SEARCH_MODES, default: 'hybrid' }) @IsOptional() @IsIn(SEARCH_MODES) mode?: string;
  @ApiPropertyOptional({ description: 'Comma-separated fragment type keys' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  types?: string;
  @ApiPropertyOptional({
    description:
      'Comma-separated; every tag must be on the fragment. `\\\\,` is a comma inside a tag, `\\\\\\\\` a backslash',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  tags?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() collectionId?: string;
  @OptionalInt({ min: 1, max: SEARCH_LIMIT_MAX, default: SEARCH_LIMIT_DEFAULT, from: 'query' })
  limit?: number;
  @OptionalInt({ min: 0, max: RETRIEVAL_DEPTH, default: 0, from: 'query' })
  offset?: number;
}

export class WorkspaceSearchQueryDto extends SearchFiltersDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
}

export class KeywordSearchQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiProperty({ minLength: 1, maxLength: SEARCH_QUERY_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(SEARCH_QUERY_MAX)
  q!: string;
  @OptionalInt({ min: 1, max: SEARCH_LIMIT_MAX, default: SEARCH_LIMIT_DEFAULT, from: 'query' })
  limit?: number;
  @OptionalInt({ min: 0, max: RETRIEVAL_DEPTH, default: 0, from: 'query' })
  offset?: number;
}

export class SuggestionsQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiProperty({ minLength: 1, maxLength: 200 }) @IsString() @MinLength(1) @MaxLength(200) prefix!: string;
  @OptionalInt({ min: 1, max: 50, default: 10, from: 'query' })
  limit?: number;
}

export class SearchHitDto {
  @ApiProperty({ enum: ['fragment'], description: 'What the hit is: fragments here, files in `files`' })
  kind!: 'fragment';
  @ApiProperty({ format: 'uuid' }) fragmentId!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ description: 'Fragment type key' }) type!: string;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({
    description:
      'Passages of the summary and content around the matches, as safe HTML: the text HTML-escaped, the matches wrapped in <mark></mark>, no other markup',
  })
  snippet!: string;
  @ApiProperty({
    description:
      "Hybrid: weighted fusion of the keyword and semantic scores, each list scaled to 0..1 first (BM25 divided by the list's best score, " +
      "the similarities min-max over the list's range: its worst candidate 0, its best 1), or the reranker's relevance for a reranked hit; " +
      'keyword: BM25; semantic: cosine similarity',
  })
  score!: number;
  @ApiProperty({
    type: [String],
    enum: ['keyword', 'semantic', 'rerank'],
    description: 'The retrievers that found the hit; `rerank` when a reranker (SEARCH_RERANK_URL) ordered it',
  })
  matchedBy!: string[];
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

export class FileSearchHitDto {
  @ApiProperty({ enum: ['file'] }) kind!: 'file';
  @ApiProperty({ format: 'uuid' }) fileId!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() name!: string;
  @ApiProperty() mimeType!: string;
  @ApiProperty({ description: 'pdf, docx, html, markdown, text, csv, json, image or other' }) fileKind!: string;
  @ApiProperty({
    description:
      'Extracted text around the match as safe HTML (escaped, matches in <mark></mark>, no other markup; empty for a name match)',
  })
  snippet!: string;
  @ApiProperty({
    description:
      "The files search's score by words: BM25 of the file's best chunk (0 for a name match alone, which comes first)",
  })
  score!: number;
  @ApiPropertyOptional({
    description:
      'The chunk the snippet comes from: `GET /api/files/{id}/chunks?offset=` reads it (absent for a name match alone)',
  })
  chunk?: number;
  @ApiProperty({ type: [String], enum: ['name', 'content'] }) matchedBy!: string[];
  @ApiProperty({ type: [String], description: 'Fragments the file is attached to' }) fragmentIds!: string[];
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

export class SearchResultsDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [SearchHitDto] }) results!: SearchHitDto[];
  @ApiPropertyOptional({
    type: [FileSearchHitDto],
    description:
      'Workspace and global search (not simple): up to 5 files whose name or extracted text match, each naming its workspace, on the first page and without type, tag or collection filters, when the caller may read files (docs/files.md)',
  })
  files?: FileSearchHitDto[];
  @ApiProperty({ description: 'Matches reachable by paging (at most the retrieval depth)' }) total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
  @ApiProperty({ enum: SEARCH_MODES }) mode!: string;
}

export class SkippedWorkspaceDto {
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uuid' }) hostedZoneId!: string;
  @ApiProperty({ description: "The zone's Leaf: search it there with a handoff token" }) endpointUrl!: string;
  @ApiProperty({ enum: ['hosted_zone'] }) reason!: 'hosted_zone';
}

export class GlobalSearchResultsDto extends SearchResultsDto {
  @ApiProperty({ description: 'Workspaces searched' }) workspaceCount!: number;
  @ApiProperty({
    type: [SkippedWorkspaceDto],
    description: 'Readable workspaces whose data lives in a hosted zone, not searched here',
  })
  skippedWorkspaces!: SkippedWorkspaceDto[];
}

export class SuggestionDto {
  @ApiProperty() text!: string;
  @ApiProperty({ enum: ['title', 'tag'] }) kind!: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'For titles' }) fragmentId?: string;
}

export class SuggestionsDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [SuggestionDto] }) suggestions!: SuggestionDto[];
}

export function searchOf(query: SearchFiltersDto) {
  return {
    query: query.q,
    mode: query.mode ?? 'hybrid',
    types: commaList(query.types),
    tags: commaList(query.tags),
    collectionId: query.collectionId ?? '',
  };
}
