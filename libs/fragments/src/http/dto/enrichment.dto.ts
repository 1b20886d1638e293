import { ApiProperty } from '@nestjs/swagger';

export class EnrichFragmentResponseDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: ['processing'] })
  status!: string;

  @ApiProperty({
    type: [String],
    description: 'Steps queued: the failed ones, or every step not skipped when none failed.',
    example: ['embedding'],
  })
  steps!: string[];

  @ApiProperty({ description: 'The fragment version the steps run on.' })
  version!: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Per-step state: {summary|tags|embedding|graph: {state, attempts, version?, error?, at}}.',
  })
  enrichment!: Record<string, unknown>;
}
