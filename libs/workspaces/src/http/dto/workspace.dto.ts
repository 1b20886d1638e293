import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { RELATIONS, WORKSPACE_ROLES } from '@kw/platform-access-policy';
import { VISIBILITIES, WORKSPACE_DESCRIPTION_MAX, WORKSPACE_NAME_MAX } from '@kw/contracts';

const NOT_BLANK = /\S/;

export class CreateWorkspaceDto {
  @ApiProperty({
    minLength: 1,
    maxLength: WORKSPACE_NAME_MAX,
    example: 'Research notes',
    description: 'Display name; not a durable identifier (use the id)',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(WORKSPACE_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name!: string;

  @ApiPropertyOptional({ maxLength: WORKSPACE_DESCRIPTION_MAX, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(WORKSPACE_DESCRIPTION_MAX)
  description?: string;

  @ApiPropertyOptional({ enum: VISIBILITIES, default: 'private' })
  @IsOptional()
  @IsIn(VISIBILITIES)
  visibility?: 'private' | 'public';

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "Requests Hosted Zone placement on one of the caller's zones: the workspace answers `status: processing` until the zone's Leaf provisioned it. Unknown or foreign zone: 404 `HOSTED_ZONE_NOT_FOUND`; zone not online: 409 `HOSTED_ZONE_OFFLINE`.",
  })
  @IsOptional()
  @IsUUID()
  hostedZoneId?: string;
}

/** Only these three fields can change; anything else (role, ownerId, id, createdBy...) is refused with 400. */
export class UpdateWorkspaceDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: WORKSPACE_NAME_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(WORKSPACE_NAME_MAX)
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional({ maxLength: WORKSPACE_DESCRIPTION_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(WORKSPACE_DESCRIPTION_MAX)
  description?: string;

  @ApiPropertyOptional({ enum: VISIBILITIES })
  @IsOptional()
  @IsIn(VISIBILITIES)
  visibility?: 'private' | 'public';
}

export class WorkspaceDto {
  @ApiProperty({ format: 'uuid', description: 'The stable handle of the workspace' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ enum: VISIBILITIES }) visibility!: string;
  @ApiProperty({
    enum: ['active', 'processing', 'moving'],
    description:
      '`processing` while a hosted-zone placement is provisioned; `moving` (read-only) while it moves between planes',
  })
  status!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) hostedZoneId!: string | null;
  @ApiProperty({
    type: String,
    format: 'uri',
    nullable: true,
    description: "The hosted zone's Leaf endpoint (Leaf-backed workspaces); null for Cloud workspaces",
  })
  endpointUrl!: string | null;
  @ApiProperty({ format: 'uuid' }) createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Set while archived (only in the archived listing)',
  })
  archivedAt!: string | null;
  @ApiProperty({
    enum: RELATIONS,
    description:
      "The caller's relation: a member role, `subscriber`, or `none` (a public workspace read by a non-member)",
  })
  relation!: string;
  @ApiProperty({
    type: String,
    enum: WORKSPACE_ROLES,
    nullable: true,
    description: "The caller's member role, or null when not a member",
  })
  role!: string | null;
}

export class WorkspaceResponseDto {
  @ApiProperty({ type: WorkspaceDto }) workspace!: WorkspaceDto;
}

export class WorkspaceListDto {
  @ApiProperty({ type: [WorkspaceDto] }) items!: WorkspaceDto[];
  @ApiProperty({ description: 'Number of items returned' }) count!: number;
}

export class DiscoverPageDto extends WorkspaceListDto {
  @ApiProperty({ description: 'Matching workspaces in all pages' }) totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}
