import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '@kw/contracts';
import { BearerOnly, CurrentAuth } from '@kw/platform-http';
import { assertChatAllowed } from '../chat-access.js';
import { ModelListDto } from '../dto/models.dto.js';
import { PlanGate } from '../plan-gate.js';
import { modelView } from '../presenters.js';
import { ModelCatalog } from './model-catalog.js';

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
}
