import { Body, Controller, Delete, Get, HttpCode, Optional, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { IdentityService } from '@kw/contracts';
import { NoStore } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import { TokenAuthenticationCache } from '@kw/platform-token-cache';
import {
  CreatedTokenDto,
  CreateTokenDto,
  TokenAnalyticsDto,
  TokenDto,
  TokenListDto,
  toTokenDto,
  UpdateTokenDto,
} from './dto/token.dto.js';

/** Personal access tokens of the caller. Every route needs scope `tokens:manage` (sessions have it). */
@ApiTags('Tokens')
@Controller('api/tokens')
export class TokensController {
  constructor(
    private readonly client: ServiceClient,
    @Optional() private readonly tokenCache?: TokenAuthenticationCache,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List your tokens',
    description: 'Metadata and display prefix only; the secret is never shown again. Revoked tokens are not listed.',
  })
  @ApiOkResponse({ type: TokenListDto })
  async list(): Promise<TokenListDto> {
    const { tokens } = await this.client.call(IdentityService.method.listTokens, {});
    return { tokens: tokens.map(toTokenDto) };
  }

  @Post()
  @HttpCode(201)
  @NoStore()
  @ApiOperation({
    summary: 'Create a token',
    description:
      'Returns the secret once (`token`). The token gets only the requested scopes and workspaces your own ' +
      'credential holds (the rest is reported in `droppedScopes` / `droppedWorkspaceIds`); a token created ' +
      'with an expiring token never outlives it.',
  })
  @ApiCreatedResponse({ type: CreatedTokenDto })
  @ApiBadRequestResponse({
    description: 'Unknown scope, empty scopes, an empty workspaceIds list, or expiresAt not in the future',
  })
  @ApiForbiddenResponse({
    description: 'Your credential holds none of the requested scopes, or none of the workspaces',
  })
  async create(@Body() body: CreateTokenDto): Promise<CreatedTokenDto> {
    const created = await this.client.call(IdentityService.method.createToken, {
      name: body.name,
      scopes: body.scopes,
      allWorkspaces: body.workspaceIds === undefined,
      workspaceIds: body.workspaceIds ?? [],
      expiresAt: body.expiresAt,
    });
    return {
      ...toTokenDto(created.tokenInfo),
      token: created.token,
      droppedScopes: created.droppedScopes,
      droppedWorkspaceIds: created.droppedWorkspaceIds,
    };
  }

  @Get(':id')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'Inspect a token' })
  @ApiOkResponse({ type: TokenDto })
  @ApiNotFoundResponse({ description: 'No such token of yours' })
  async get(@Param('id') id: string): Promise<TokenDto> {
    return toTokenDto((await this.client.call(IdentityService.method.getToken, { id })).tokenInfo);
  }

  @Patch(':id')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'Update a token',
    description:
      'Rename, change the expiry, or narrow scopes and workspaces (adding either is refused with 400). ' +
      'Null is refused for every field: an expiry cannot be removed, a workspace list cannot be emptied.',
  })
  @ApiOkResponse({ type: TokenDto })
  @ApiBadRequestResponse({ description: 'A widening, a null field, an empty workspaceIds list' })
  @ApiNotFoundResponse({ description: 'No such token of yours' })
  async update(@Param('id') id: string, @Body() body: UpdateTokenDto): Promise<TokenDto> {
    const { tokenInfo } = await this.client.call(IdentityService.method.updateToken, {
      id,
      name: body.name,
      expiresAt: body.expiresAt ?? undefined,
      scopes: body.scopes ? { values: body.scopes } : undefined,
      workspaceIds: body.workspaceIds ? { values: body.workspaceIds } : undefined,
    });
    return toTokenDto(tokenInfo);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'Revoke a token', description: 'The token stops working at once.' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ description: 'No such token of yours' })
  async revoke(@Param('id') id: string): Promise<void> {
    await this.client.call(IdentityService.method.revokeToken, { id });
  }

  @Get(':id/analytics')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'Token usage',
    description: 'Requests per UTC day over the last 30 days, last use, and the total.',
  })
  @ApiOkResponse({ type: TokenAnalyticsDto })
  @ApiNotFoundResponse({ description: 'No such token of yours' })
  async analytics(@Param('id') id: string): Promise<TokenAnalyticsDto> {
    // Uses this gateway answered from its cache (this request's among them) count too.
    await this.tokenCache?.flushUses();
    const usage = await this.client.call(IdentityService.method.getTokenAnalytics, { id });
    return {
      requestsPerDay: usage.requestsPerDay.map((d) => ({ day: d.day, requests: d.requests })),
      lastUsedAt: usage.lastUsedAt ?? null,
      lastUsedIp: usage.lastUsedIp ?? null,
      totalRequests: usage.totalRequests,
    };
  }
}
