import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { EnrichmentService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';

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

@ApiTags('Memory fragments')
@ApiBearerAuth('bearer')
@Controller('api/memory-fragments')
export class EnrichmentController {
  constructor(private readonly client: ServiceClient) {}

  @Post(':id/enrich')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Re-enrich a fragment',
    description:
      'Queues the failed enrichment steps again (every step when none failed); the fragment is ' +
      '`processing` until the worker is done, then `published`. Scope `fragments:write`; contributors only ' +
      'on their own fragments.',
  })
  @ApiAcceptedResponse({ type: EnrichFragmentResponseDto })
  async enrich(@Param('id') id: string): Promise<EnrichFragmentResponseDto> {
    const res = await this.client.call(EnrichmentService.method.enrichFragment, { fragmentId: id });
    return {
      id: res.fragmentId,
      status: res.status,
      steps: res.steps,
      version: res.version,
      enrichment: JSON.parse(res.enrichmentJson || '{}') as Record<string, unknown>,
    };
  }
}
