import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ExpertsService, type ExpertRecord } from '@kw/contracts';
import { describeAgentTools } from '@kw/platform-agent-tools';
import { ServiceClient } from '@kw/platform-transport';
import { CHAT_PAGE_DEFAULT } from '../chat-limits.js';
import {
  AgentToolListDto,
  CreateExpertDto,
  ExpertEnvelopeDto,
  ExpertListDto,
  ListExpertsQueryDto,
  UpdateExpertDto,
  type ExpertDto,
} from './dto/experts.dto.js';
import { ModelCatalog } from './models/model-catalog.js';

const NOT_YOURS = 'No expert of yours has this id (other users’ experts, and archived ones, answer the same)';

export const expertDto = (e: ExpertRecord): ExpertDto => ({
  id: e.id,
  name: e.name,
  workspaceId: e.workspaceId,
  expertConfig: {
    systemPrompt: e.systemPrompt,
    enabledTools: e.enabledTools,
    routing: { keywords: e.routingKeywords },
    modelPreference: e.modelPreference,
  },
  createdBy: e.createdBy,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

/** Custom experts (docs/chat.md#custom-experts): session or PAT with `applications:manage`. */
@ApiTags('Experts')
@Controller('api/v2/experts')
export class ExpertsController {
  constructor(
    private readonly client: ServiceClient,
    private readonly catalog: ModelCatalog,
  ) {}

  @Get('tools')
  @ApiOperation({
    summary: 'The tools an expert may use',
    description: 'The agent tool registry, the same tools the MCP endpoint offers: id, description and JSON Schema.',
  })
  @ApiOkResponse({ type: AgentToolListDto })
  tools(): AgentToolListDto {
    return { tools: describeAgentTools() };
  }

  @Get()
  @ApiOperation({ summary: 'List your experts', description: 'Oldest first; `workspaceId` filters.' })
  @ApiOkResponse({ type: ExpertListDto })
  async list(@Query() query: ListExpertsQueryDto): Promise<ExpertListDto> {
    const limit = query.limit ?? CHAT_PAGE_DEFAULT;
    const offset = query.offset ?? 0;
    const { experts, totalCount } = await this.client.call(ExpertsService.method.listExperts, {
      workspaceId: query.workspaceId ?? '',
      limit,
      offset,
    });
    return { experts: experts.map(expertDto), totalCount, limit, offset };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an expert' })
  @ApiCreatedResponse({ type: ExpertEnvelopeDto })
  async create(@Body() body: CreateExpertDto): Promise<ExpertEnvelopeDto> {
    const config = body.expertConfig ?? {};
    this.catalog.requireChatModelField(config.modelPreference, 'expertConfig.modelPreference');
    const { expert } = await this.client.call(ExpertsService.method.createExpert, {
      name: body.name,
      workspaceId: body.workspaceId,
      systemPrompt: config.systemPrompt ?? '',
      enabledTools: config.enabledTools ?? [],
      routingKeywords: config.routing?.keywords ?? [],
      modelPreference: config.modelPreference ?? '',
    });
    return { expert: expertDto(expert!) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Fetch an expert' })
  @ApiOkResponse({ type: ExpertEnvelopeDto })
  @ApiNotFoundResponse({ description: NOT_YOURS })
  async get(@Param('id') id: string): Promise<ExpertEnvelopeDto> {
    const { expert } = await this.client.call(ExpertsService.method.getExpert, { id });
    return { expert: expertDto(expert!) };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update an expert', description: 'Fields present are replaced; lists as a whole.' })
  @ApiOkResponse({ type: ExpertEnvelopeDto })
  @ApiNotFoundResponse({ description: NOT_YOURS })
  async update(@Param('id') id: string, @Body() body: UpdateExpertDto): Promise<ExpertEnvelopeDto> {
    const config = body.expertConfig ?? {};
    this.catalog.requireChatModelField(config.modelPreference, 'expertConfig.modelPreference');
    const { expert } = await this.client.call(ExpertsService.method.updateExpert, {
      id,
      name: body.name,
      systemPrompt: config.systemPrompt,
      enabledTools: config.enabledTools ?? [],
      setEnabledTools: config.enabledTools !== undefined,
      routingKeywords: config.routing?.keywords ?? [],
      setRoutingKeywords: config.routing?.keywords !== undefined,
      modelPreference: config.modelPreference,
    });
    return { expert: expertDto(expert!) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive an expert' })
  @ApiNoContentResponse({ description: 'Archived' })
  @ApiNotFoundResponse({ description: NOT_YOURS })
  async archive(@Param('id') id: string): Promise<void> {
    await this.client.call(ExpertsService.method.archiveExpert, { id });
  }
}
