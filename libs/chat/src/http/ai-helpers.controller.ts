import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AiHelpersService, type UsageRow } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import {
  AvailabilityDto,
  EmbeddingRequestDto,
  EmbeddingResponseDto,
  SummaryResponseDto,
  TagsRequestDto,
  TagsResponseDto,
  TextOrFragmentDto,
  UsageDto,
  UsageQueryDto,
  type UsageRowDto,
} from './dto/ai-helpers.dto.js';

const row = (r: UsageRow | undefined): UsageRowDto => ({
  day: r?.day ?? '',
  model: r?.model ?? '',
  capability: r?.capability ?? '',
  credentialId: r?.credentialId ?? '',
  workspaceId: r?.workspaceId ?? '',
  requests: r?.requests ?? 0,
  inputTokens: Number(r?.inputTokens ?? 0),
  outputTokens: Number(r?.outputTokens ?? 0),
  images: r?.images ?? 0,
  searches: r?.searches ?? 0,
  embeddings: r?.embeddings ?? 0,
  estimatedCost: r?.estimatedCost ?? 0,
});

/**
 * AI helpers (docs/ai-helpers.md): what the platform's AI provider makes of a text or a
 * fragment, what is available now, and usage. Scope `chat:use`; session or token.
 */
@ApiTags('AI helpers')
@Controller('api/ai')
export class AiHelpersController {
  constructor(private readonly client: ServiceClient) {}

  @Post('embedding')
  @HttpCode(200)
  @ApiOperation({ summary: 'Embed a text or up to 100 texts', description: 'With the provider enrichment uses.' })
  @ApiOkResponse({ type: EmbeddingResponseDto })
  @ApiBadGatewayResponse({ description: 'The AI provider failed' })
  async embedding(@Body() body: EmbeddingRequestDto): Promise<EmbeddingResponseDto> {
    const texts = typeof body.input === 'string' ? [body.input] : body.input;
    const answer = await this.client.call(AiHelpersService.method.embed, { texts, inputType: body.inputType });
    return {
      provider: answer.provider,
      model: answer.model,
      dimension: answer.dimension,
      data: answer.vectors.map((v, index) => ({ index, embedding: v.values })),
    };
  }

  @Post('summary')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Summarize a text or a fragment',
    description: 'What enrichment would write as the summary.',
  })
  @ApiOkResponse({ type: SummaryResponseDto })
  async summary(@Body() body: TextOrFragmentDto): Promise<SummaryResponseDto> {
    const { summary, provider, model } = await this.client.call(AiHelpersService.method.summarize, {
      text: body.text,
      fragmentId: body.fragmentId,
    });
    return { summary, provider, model };
  }

  @Post('tags')
  @HttpCode(200)
  @ApiOperation({ summary: 'Suggest tags for a text or a fragment', description: 'What enrichment would tag it with.' })
  @ApiOkResponse({ type: TagsResponseDto })
  async tags(@Body() body: TagsRequestDto): Promise<TagsResponseDto> {
    const { tags, provider, model } = await this.client.call(AiHelpersService.method.tag, {
      text: body.text,
      fragmentId: body.fragmentId,
      max: body.max ?? 0,
    });
    return { tags, provider, model };
  }

  @Get('availability')
  @ApiOperation({
    summary: 'Which AI capabilities work now',
    description: 'embedding, summary, tags, chat, images, web_search: provider, model, and why not when not.',
  })
  @ApiOkResponse({ type: AvailabilityDto })
  async availability(): Promise<AvailabilityDto> {
    const { capabilities } = await this.client.call(AiHelpersService.method.getAvailability, {});
    return {
      capabilities: capabilities.map((c) => ({
        name: c.name,
        available: c.available,
        provider: c.provider,
        model: c.model,
        ...(c.reason ? { reason: c.reason } : {}),
      })),
    };
  }

  @Get('usage')
  @ApiOperation({
    summary: 'Usage of AI-backed calls',
    description:
      'Requests, tokens, images, searches and embeddings per the dimensions of `groupBy`, with a cost estimate. ' +
      "Yours; with `workspaceId` a workspace owner sees everyone's there; `allUsers` for platform administrators.",
  })
  @ApiOkResponse({ type: UsageDto })
  async usage(@Query() query: UsageQueryDto): Promise<UsageDto> {
    const answer = await this.client.call(AiHelpersService.method.getUsage, {
      from: query.from ?? '',
      to: query.to ?? '',
      groupBy: query.groupBy ?? [],
      workspaceId: query.workspaceId,
      capability: query.capability,
      model: query.model,
      allUsers: query.allUsers ?? false,
      limit: query.limit ?? 0,
      offset: query.offset ?? 0,
    });
    return {
      rows: answer.rows.map(row),
      totalCount: answer.totalCount,
      totals: row(answer.totals),
      currency: answer.currency,
    };
  }
}
