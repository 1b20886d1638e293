import { Controller, Get, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '@kw/contracts';
import { BearerOnly, CurrentAuth } from '@kw/platform-http';
import { assertChatAllowed } from '../chat-access.js';
import { ModelDto, ModelListDto } from '../dto/models.dto.js';
import { PlanGate } from '../plan-gate.js';
import { modelView } from '../presenters.js';
import { ModelCatalog, modelNotFound } from './model-catalog.js';

@ApiTags('OpenAI-compatible')
@BearerOnly()
@Controller('api/v1')
export class ModelsController {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly plans: PlanGate,
  ) {}

  @Get('models')
  @ApiOperation({
    summary: 'List the models',
    description:
      "The models of the configured providers the caller's plan includes, discovered from their model lists and described by the operator (as OpenAI lists the models a key may use). Empty when no provider is configured.",
  })
  @ApiOkResponse({ type: ModelListDto })
  async list(@CurrentAuth() auth: AuthContext): Promise<ModelListDto> {
    assertChatAllowed(auth);
    // Only what the caller may call: a listed model must not then answer 403 plan_model_not_allowed.
    const allowed = await this.plans.allowedModels(auth.userId);
    const models = this.catalog.list().filter((m) => !allowed || allowed.has(m.id));
    return { object: 'list', data: models.map(modelView) };
  }

  @Get('models/:model')
  @ApiOperation({
    summary: 'Retrieve a model',
    description:
      "One entry of `GET /api/v1/models` (OpenAI's `models.retrieve`); an id with a `/` is sent URL-encoded (`%2F`). A model the caller's plan does not include answers 404 like an unknown one.",
  })
  @ApiParam({ name: 'model', description: 'A model id of GET /api/v1/models' })
  @ApiOkResponse({ type: ModelDto })
  @ApiNotFoundResponse({ description: '`model_not_found`' })
  async retrieve(@CurrentAuth() auth: AuthContext, @Param('model') id: string): Promise<ModelDto> {
    assertChatAllowed(auth);
    // Listed models only (a hidden one answers 404 too), and only those the caller's plan includes.
    const allowed = await this.plans.allowedModels(auth.userId);
    const model = this.catalog.list().find((m) => m.id === id && (!allowed || allowed.has(m.id)));
    if (!model) throw modelNotFound(id);
    return modelView(model);
  }
}
