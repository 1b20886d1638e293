import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '@kw/contracts';
import { BearerOnly, CurrentAuth } from '@kw/platform-http';
import { assertChatAllowed } from '../chat-access.js';
import { ModelListDto } from '../dto/models.dto.js';
import { modelView } from '../presenters.js';
import { ModelCatalog } from './model-catalog.js';

@ApiTags('OpenAI-compatible')
@BearerOnly()
@Controller('api/v1')
export class ModelsController {
  constructor(private readonly catalog: ModelCatalog) {}

  @Get('models')
  @ApiOperation({
    summary: 'List the models',
    description:
      'The models of the configured providers, discovered from their model lists and described by the operator. Empty when no provider is configured.',
  })
  @ApiOkResponse({ type: ModelListDto })
  list(@CurrentAuth() auth: AuthContext): ModelListDto {
    assertChatAllowed(auth);
    return { object: 'list', data: this.catalog.list().map(modelView) };
  }
}
