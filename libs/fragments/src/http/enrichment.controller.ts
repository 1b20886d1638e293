import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EnrichmentService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { EnrichFragmentResponseDto } from './dto/enrichment.dto.js';
import { enrichmentRequestJson } from './presenters.js';

@ApiTags('Memory fragments')
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
    return enrichmentRequestJson(await this.client.call(EnrichmentService.method.enrichFragment, { fragmentId: id }));
  }
}
