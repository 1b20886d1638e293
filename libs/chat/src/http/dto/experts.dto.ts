import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WorkspacePageQueryDto } from './workspace-page.dto.js';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  EXPERT_KEYWORD_MAX,
  EXPERT_KEYWORDS_MAX,
  EXPERT_MODEL_MAX,
  EXPERT_NAME_MAX,
  EXPERT_SYSTEM_PROMPT_MAX,
  EXPERT_TOOLS_MAX,
} from '../../chat-limits.js';

export class ExpertRoutingDto {
  @ApiPropertyOptional({
    type: [String],
    maxItems: EXPERT_KEYWORDS_MAX,
    description: 'A turn whose text holds one of these (case-insensitive) is handed to this expert',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EXPERT_KEYWORDS_MAX)
  @IsString({ each: true })
  @MaxLength(EXPERT_KEYWORD_MAX, { each: true })
  keywords?: string[];
}

export class ExpertConfigDto {
  @ApiPropertyOptional({ maxLength: EXPERT_SYSTEM_PROMPT_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(EXPERT_SYSTEM_PROMPT_MAX)
  systemPrompt?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: EXPERT_TOOLS_MAX,
    description: 'Tool ids of GET /api/v2/experts/tools; an unknown id is refused',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EXPERT_TOOLS_MAX)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  enabledTools?: string[];

  @ApiPropertyOptional({ type: ExpertRoutingDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ExpertRoutingDto)
  routing?: ExpertRoutingDto;

  @ApiPropertyOptional({
    maxLength: EXPERT_MODEL_MAX,
    description: 'A model id of GET /api/v1/models; an unknown id is refused',
  })
  @IsOptional()
  @IsString()
  @MaxLength(EXPERT_MODEL_MAX)
  modelPreference?: string;
}

export class CreateExpertDto {
  @ApiProperty({ minLength: 1, maxLength: EXPERT_NAME_MAX })
  @IsString()
  @MinLength(1)
  @MaxLength(EXPERT_NAME_MAX)
  name!: string;

  @ApiProperty({ format: 'uuid', description: 'A workspace you can read: the expert’s tools work on it' })
  @IsUUID()
  workspaceId!: string;

  @ApiPropertyOptional({ type: ExpertConfigDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ExpertConfigDto)
  expertConfig?: ExpertConfigDto;
}

export class UpdateExpertDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: EXPERT_NAME_MAX })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(EXPERT_NAME_MAX)
  name?: string;

  @ApiPropertyOptional({ type: ExpertConfigDto, description: 'Fields present are replaced; lists as a whole' })
  @IsOptional()
  @ValidateNested()
  @Type(() => ExpertConfigDto)
  expertConfig?: ExpertConfigDto;
}

export class ListExpertsQueryDto extends WorkspacePageQueryDto {}

class ExpertRoutingViewDto {
  @ApiProperty({ type: [String] }) keywords!: string[];
}

class ExpertConfigViewDto {
  @ApiProperty() systemPrompt!: string;
  @ApiProperty({ type: [String] }) enabledTools!: string[];
  @ApiProperty({ type: ExpertRoutingViewDto }) routing!: ExpertRoutingViewDto;
  @ApiProperty({ description: '"" when the configuration’s model is used' }) modelPreference!: string;
}

export class ExpertDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty({ type: ExpertConfigViewDto }) expertConfig!: ExpertConfigViewDto;
  @ApiProperty({ format: 'uuid' }) createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class ExpertEnvelopeDto {
  @ApiProperty({ type: ExpertDto }) expert!: ExpertDto;
}

export class ExpertListDto {
  @ApiProperty({ type: [ExpertDto] }) experts!: ExpertDto[];
  @ApiProperty() totalCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

class AgentToolDto {
  @ApiProperty({ example: 'search' }) id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema of the arguments' })
  inputSchema!: Record<string, unknown>;
  @ApiProperty({ description: 'The tool only reads' }) readOnly!: boolean;
}

export class AgentToolListDto {
  @ApiProperty({ type: [AgentToolDto] }) tools!: AgentToolDto[];
}
