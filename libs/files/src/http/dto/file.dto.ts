import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { OptionalInt } from '@kw/platform-http';
import {
  FILES_BULK_DELETE_MAX,
  FILE_CHUNKS_PAGE_DEFAULT,
  FILE_CHUNKS_OFFSET_MAX,
  FILE_CHUNKS_PAGE_MAX,
  FILE_DESCRIPTION_MAX_CHARS,
  FILE_LIST_OFFSET_MAX,
  FILE_LIST_PAGE_DEFAULT,
  FILE_LIST_PAGE_MAX,
  FILE_SEARCH_OFFSET_MAX,
  FILE_SEARCH_PAGE_DEFAULT,
  FILE_SEARCH_PAGE_MAX,
  FILE_SEARCH_QUERY_MAX_CHARS,
  SEARCH_MODES,
} from '../../files-limits.js';

import { FILE_KINDS } from '../../domain/file-kind.js';
import { FILE_STATUSES } from '../../domain/file-status.js';
import { MEDIA_TYPE } from '../../domain/media-type.js';

const NAME_MAX_CHARS = 1_000;
/** The byte proxy's `mimeType`: a media type, or empty for none. */
const MEDIA_TYPE_OR_NONE = new RegExp(`${MEDIA_TYPE.source}|^$`);

export class FileProgressDto {
  @ApiProperty({ description: 'Pages of a PDF read so far (0 for other kinds)' }) pagesDone!: number;
  @ApiProperty({ description: 'Pages of the PDF (0 when unknown or not a PDF)' }) pagesTotal!: number;
}

export class FileDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty({ description: 'Stored name: no folders, control characters or leading dots; at most 255 UTF-8 bytes' })
  name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'Sniffed from the bytes (the declared type is never trusted over them)' })
  mimeType!: string;
  @ApiProperty({ description: 'What the client declared for the part' }) declaredMimeType!: string;
  @ApiProperty({ enum: ['pdf', 'docx', 'html', 'markdown', 'text', 'csv', 'json', 'image', 'other'] }) kind!: string;
  @ApiProperty() sizeBytes!: number;
  @ApiProperty({ description: 'SHA-256 of the bytes, hex; also the download ETag' }) sha256!: string;
  @ApiProperty({ enum: ['processing', 'ready', 'failed', 'cancelled'] }) status!: string;
  @ApiPropertyOptional({
    description:
      'Why processing failed: malformed, too_many_pages, archive_too_large, timeout, too_much_memory, processing_error',
  })
  failureReason?: string;
  @ApiPropertyOptional() failureMessage?: string;
  @ApiProperty({ type: FileProgressDto }) progress!: FileProgressDto;
  @ApiProperty({ description: 'Chunks of extracted text indexed for search' }) chunkCount!: number;
  @ApiProperty({ description: 'The extracted text was cut at the text limit' }) textTruncated!: boolean;
  @ApiProperty({ type: [String], description: 'Fragments the file is attached to' }) fragmentIds!: string[];
  @ApiProperty({ format: 'uuid' }) createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'When processing ended' }) processedAt?: string;
}

export class FileResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: FileDto }) file!: FileDto;
}

export class UploadResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [FileDto], description: 'One per file part, in order; each `processing`' }) files!: FileDto[];
  @ApiProperty({ type: FileDto, description: 'The first file (most uploads carry one)' }) file!: FileDto;
}

export class FileStatusDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['processing', 'ready', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty({ type: FileProgressDto }) progress!: FileProgressDto;
  @ApiPropertyOptional() failureReason?: string;
  @ApiPropertyOptional() failureMessage?: string;
  @ApiProperty() chunkCount!: number;
}

export class UpdateFileDto {
  @ApiPropertyOptional({ maxLength: NAME_MAX_CHARS, description: 'Made safe like an uploaded name' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(NAME_MAX_CHARS)
  name?: string;
  @ApiPropertyOptional({ maxLength: FILE_DESCRIPTION_MAX_CHARS })
  @IsOptional()
  @IsString()
  @MaxLength(FILE_DESCRIPTION_MAX_CHARS)
  description?: string;
}

export class BulkDeleteFilesDto {
  @ApiProperty({ type: [String], minItems: 1, maxItems: FILES_BULK_DELETE_MAX })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(FILES_BULK_DELETE_MAX)
  @IsUUID('all', { each: true })
  ids!: string[];
}

export class BulkDeleteOutcomeDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() deleted!: boolean;
  @ApiPropertyOptional({ description: 'Error code when not deleted (NOT_FOUND, FORBIDDEN...)' }) code?: string;
  @ApiPropertyOptional() message?: string;
}

export class BulkDeleteResultDto {
  @ApiProperty() success!: boolean;
  @ApiProperty() deleted!: number;
  @ApiProperty({ type: [BulkDeleteOutcomeDto] }) results!: BulkDeleteOutcomeDto[];
}

export class AttachmentDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() fragmentId!: string;
}

export class FileSearchQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiProperty({ maxLength: FILE_SEARCH_QUERY_MAX_CHARS, description: 'Part of the name, or words of the content' })
  @IsString()
  @MinLength(1)
  @MaxLength(FILE_SEARCH_QUERY_MAX_CHARS)
  q!: string;
  @ApiPropertyOptional({
    enum: SEARCH_MODES,
    default: 'hybrid',
    description:
      'Which retrievers rank the extracted text: its words (BM25) and meaning fused, words only, or meaning only',
  })
  @IsOptional()
  @IsIn(SEARCH_MODES)
  mode?: string;
  @OptionalInt({ min: 1, max: FILE_SEARCH_PAGE_MAX, default: FILE_SEARCH_PAGE_DEFAULT, from: 'query' })
  limit?: number;
  @OptionalInt({ min: 0, max: FILE_SEARCH_OFFSET_MAX, default: 0, from: 'query' })
  offset?: number;
}

export class FileSearchHitDto {
  @ApiProperty({ type: FileDto }) file!: FileDto;
  @ApiProperty({
    description:
      'Fused score (hybrid), BM25 of the best chunk (keyword) or its cosine (semantic); 0 for a name match alone',
  })
  score!: number;
  @ApiProperty({
    type: [String],
    description: 'What matched: `name`, `content` (words of the text), `semantic` (a chunk close in meaning)',
  })
  matched!: string[];
  @ApiProperty({
    description:
      'The ranking chunk around the query words as safe HTML: the text HTML-escaped, the matches in <mark></mark>, no other markup (its opening when matched by meaning only; empty for a name match alone)',
  })
  snippet!: string;
  @ApiPropertyOptional({
    description:
      'The ordinal of the chunk the snippet comes from: `GET /api/files/{id}/chunks?offset=` reads it with its neighbours (absent for a name match alone)',
  })
  chunk?: number;
}

export class FileSearchResultDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [FileSearchHitDto] }) items!: FileSearchHitDto[];
  @ApiProperty() count!: number;
  @ApiProperty() totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class FileChunksQueryDto {
  @OptionalInt({
    min: 0,
    max: FILE_CHUNKS_OFFSET_MAX,
    default: 0,
    description: 'The first chunk to read (its ordinal)',
    from: 'query',
  })
  offset?: number;
  @OptionalInt({ min: 1, max: FILE_CHUNKS_PAGE_MAX, default: FILE_CHUNKS_PAGE_DEFAULT, from: 'query' })
  limit?: number;
}

export class FileChunkDto {
  @ApiProperty({ description: 'Its place in the file, from 0' }) ordinal!: number;
  @ApiProperty({
    description: 'About 1,000 characters of the extracted text; a chunk repeats the last sentences of the one before',
  })
  text!: string;
}

export class FileChunksDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: FileDto, description: 'The file; only a `ready` file has chunks' }) file!: FileDto;
  @ApiProperty({ type: [FileChunkDto] }) items!: FileChunkDto[];
  @ApiProperty() count!: number;
  @ApiProperty({ description: 'The chunks of the file (its chunkCount once ready, else 0)' }) totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class FileListQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiPropertyOptional({ enum: FILE_STATUSES, description: 'Only files in this state' })
  @IsOptional()
  @IsIn(FILE_STATUSES)
  status?: string;
  @ApiPropertyOptional({ enum: FILE_KINDS, description: 'Only files of this kind' })
  @IsOptional()
  @IsIn(FILE_KINDS)
  kind?: string;
  @OptionalInt({ min: 1, max: FILE_LIST_PAGE_MAX, default: FILE_LIST_PAGE_DEFAULT, from: 'query' })
  limit?: number;
  @OptionalInt({ min: 0, max: FILE_LIST_OFFSET_MAX, default: 0, from: 'query' })
  offset?: number;
}

export class FileListPageDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [FileDto], description: 'Newest first' }) items!: FileDto[];
  @ApiProperty() count!: number;
  @ApiProperty() totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class FileListDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: [FileDto] }) items!: FileDto[];
  @ApiProperty() count!: number;
}

export class PutBytesDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() workspaceId!: string;
  @ApiProperty({ maxLength: NAME_MAX_CHARS }) @IsString() @MinLength(1) @MaxLength(NAME_MAX_CHARS) fileName!: string;
  @ApiProperty({
    maxLength: 255,
    description:
      'Declared type, a media type (`type/subtype`, optional `; name=value` parameters) or empty; the stored type is sniffed from the bytes',
  })
  @IsString()
  @MaxLength(255)
  @Matches(MEDIA_TYPE_OR_NONE, {
    message: 'mimeType must be a media type (type/subtype, optional parameters) or empty',
  })
  mimeType!: string;
  @ApiProperty({ description: 'Raw base64, or a `data:<type>;base64,<data>` URL; at most 50 MiB decoded' })
  @IsString()
  @MinLength(1)
  base64!: string;
}

export class PutBytesResultDto {
  @ApiProperty() ok!: boolean;
  @ApiProperty({ format: 'uuid' }) fileId!: string;
  @ApiPropertyOptional({ enum: ['processing'] }) status?: string;
}
