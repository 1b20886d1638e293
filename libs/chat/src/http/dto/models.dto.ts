import { ApiProperty } from '@nestjs/swagger';

class ModelCapabilitiesDto {
  @ApiProperty() vision!: boolean;
  @ApiProperty() reasoning!: boolean;
  @ApiProperty() max_output_tokens!: number;
  @ApiProperty() context_length!: number;
}

export class ModelDto {
  @ApiProperty({ description: 'Discovered from the providers; varies per deployment' }) id!: string;
  @ApiProperty({ enum: ['model'] }) object!: 'model';
  @ApiProperty({ description: "OpenAI's creation time (unix seconds); always 0: the platform knows none" })
  created!: number;
  @ApiProperty() owned_by!: string;
  @ApiProperty() display_name!: string;
  @ApiProperty({ enum: ['chat', 'image'] }) modality!: 'chat' | 'image';
  @ApiProperty({ type: ModelCapabilitiesDto }) capabilities!: ModelCapabilitiesDto;
}

export class ModelListDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [ModelDto] }) data!: ModelDto[];
}
