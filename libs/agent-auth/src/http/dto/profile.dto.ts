import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

export class UpdateProfileDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100, example: 'Ada Lovelace' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  displayName?: string;
}

export class BetaFeatureDto {
  @ApiProperty({ example: 'agentic-search' }) featureKey!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty() description!: string;
}

export class BetaFeatureListDto {
  @ApiProperty({ type: [BetaFeatureDto] }) features!: BetaFeatureDto[];
}

export class UpdateBetaFeatureDto {
  @ApiProperty({ example: 'agentic-search', description: 'One of the keys GET /api/user/beta-features lists' })
  @IsString()
  @MaxLength(100)
  featureKey!: string;

  @ApiProperty()
  @IsBoolean()
  enabled!: boolean;
}
