import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsOptional, IsUUID, ValidateIf, ValidateNested } from 'class-validator';

export class EnrichmentSettingsDto {
  @ApiProperty({
    description:
      'Generate a summary for fragments written from now on that come without one (false: the summary step is skipped)',
  })
  summaries!: boolean;
  @ApiProperty({
    description:
      'Generate tags for fragments written from now on that come without them, or add to them with enhanceTags (false: the tags step is skipped)',
  })
  tags!: boolean;
}

export class WorkspaceSettingsDto {
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'Fragment type used when a fragment is created without one',
  })
  defaultFragmentTypeId!: string | null;
  @ApiProperty({ type: EnrichmentSettingsDto }) enrichment!: EnrichmentSettingsDto;
  @ApiProperty({
    description: 'Whether users may subscribe while the workspace is public (existing subscriptions stay)',
  })
  allowPublicSubscriptions!: boolean;
}

export class WorkspaceSettingsResponseDto {
  @ApiProperty({ type: WorkspaceSettingsDto }) settings!: WorkspaceSettingsDto;
}

export class EnrichmentSettingsPatchDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() summaries?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() tags?: boolean;
}

/** A partial settings object: keys left out keep their value; unknown keys are refused. */
export class UpdateWorkspaceSettingsDto {
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'null clears it' })
  @ValidateIf((_o, value) => value !== undefined && value !== null)
  @IsUUID()
  defaultFragmentTypeId?: string | null;

  @ApiPropertyOptional({ type: EnrichmentSettingsPatchDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => EnrichmentSettingsPatchDto)
  enrichment?: EnrichmentSettingsPatchDto;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  allowPublicSubscriptions?: boolean;
}
