import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import {
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AgentAuthService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { AgentGrantListDto, toAgentGrantDto } from './dto/agent-auth.dto.js';

/** The agents you let act for you. Scope `tokens:manage` (sessions have it; agents never do). */
@ApiTags('Agent authentication')
@Controller('api/agent-grants')
export class AgentGrantsController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({ summary: 'List your agent grants', description: 'Live grants only; tokens are never shown.' })
  @ApiOkResponse({ type: AgentGrantListDto })
  async list(): Promise<AgentGrantListDto> {
    const { grants } = await this.client.call(AgentAuthService.method.listAgentGrants, {});
    return { grants: grants.map(toAgentGrantDto) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'Revoke an agent grant',
    description: 'Every access and refresh token of it stops working at once.',
  })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiNotFoundResponse({ description: 'No such live grant of yours' })
  async revoke(@Param('id') id: string): Promise<void> {
    await this.client.call(AgentAuthService.method.revokeAgentGrant, { id });
  }
}
