import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AgentAuthService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import {
  AddTrustedIssuerDto,
  TrustedIssuerDto,
  TrustedIssuerListDto,
  toTrustedIssuerDto,
} from './dto/agent-auth.dto.js';

/** Identity providers trusted for agent authentication. Platform administrators (scope `admin`). */
@ApiTags('Agent authentication')
@Controller('api/admin/trusted-issuers')
export class TrustedIssuersController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({
    summary: 'List trusted identity providers',
    description: 'Configured ones (AGENT_TRUSTED_ISSUERS) and added ones.',
  })
  @ApiOkResponse({ type: TrustedIssuerListDto })
  async list(): Promise<TrustedIssuerListDto> {
    const { issuers } = await this.client.call(AgentAuthService.method.listTrustedIssuers, {});
    return { issuers: issuers.map(toTrustedIssuerDto) };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Trust an identity provider',
    description:
      'Its ID-JAGs and Security Event Tokens are accepted from now on, by every replica. Give `jwksUri` or `jwks`.',
  })
  @ApiCreatedResponse({ type: TrustedIssuerDto })
  @ApiConflictResponse({ description: 'Already trusted' })
  async add(@Body() body: AddTrustedIssuerDto): Promise<TrustedIssuerDto> {
    const { issuer } = await this.client.call(AgentAuthService.method.addTrustedIssuer, {
      issuer: body.issuer,
      jwksUri: body.jwksUri,
      jwks: body.jwks === undefined ? undefined : JSON.stringify(body.jwks),
      algorithms: body.algorithms ?? [],
      allowedClientIds: body.allowedClientIds ?? [],
    });
    return toTrustedIssuerDto(issuer!);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'Stop trusting an identity provider',
    description:
      'Every live agent grant its assertions made is revoked with it (their tokens stop at once). ' +
      'Configured ones cannot be removed here.',
  })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiNotFoundResponse({ description: 'No such added issuer' })
  async remove(@Param('id') id: string): Promise<void> {
    await this.client.call(AgentAuthService.method.removeTrustedIssuer, { id });
  }
}
