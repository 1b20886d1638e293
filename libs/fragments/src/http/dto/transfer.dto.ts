import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';

export class ImportQueryDto {
  @ApiPropertyOptional({
    default: false,
    description:
      'Leave the archive’s files behind (a hosted zone keeps none; otherwise such an import fails naming them)',
  })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  skipFiles?: boolean;

  @ApiPropertyOptional({
    enum: ['archive', 'markdown'],
    default: 'archive',
    description: '`archive`: an export of this platform; `markdown`: a zip of a Markdown folder (an Obsidian vault)',
  })
  @IsOptional()
  @IsIn(['archive', 'markdown'])
  format?: 'archive' | 'markdown';
}

export class TransferProgressDto {
  @ApiProperty() done!: number;
  @ApiProperty() total!: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) percent!: number;
}

export class TransferDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty({ enum: ['export', 'import'] }) kind!: string;
  @ApiProperty({
    enum: ['uploading', 'processing', 'done', 'failed', 'expired'],
    description: '`expired`: an export whose archive was deleted, EXPORT_ARCHIVE_TTL_MS after it finished',
  })
  status!: string;
  @ApiProperty({ type: TransferProgressDto, description: 'Records written (import) or read (export) so far' })
  progress!: TransferProgressDto;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Why it failed; for a damaged archive, the entry and line of the problem',
  })
  error!: string | null;
  @ApiProperty({ type: Object, description: 'Counts per kind of record, once done' })
  result!: Record<string, unknown>;
  @ApiProperty({ nullable: true, type: Number }) archiveBytes!: number | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) finishedAt!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'A done export: when its archive is deleted (then the export is `expired`); null otherwise',
  })
  expiresAt!: string | null;
}

export class TransferResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: TransferDto }) transfer!: TransferDto;
}
