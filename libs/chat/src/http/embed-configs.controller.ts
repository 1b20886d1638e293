import { NoStore } from '@kw/platform-http';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { EmbedConfigsService, type EmbedConfigRecord, type EmbedKeyRecord } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { CHAT_PAGE_DEFAULT, EMBED_KEYS_PER_CONFIG_MAX } from '../chat-limits.js';
import {
  CreateEmbedConfigDto,
  CreateEmbedKeyDto,
  CreatedEmbedKeyDto,
  EmbedConfigEnvelopeDto,
  EmbedConfigListDto,
  EmbedKeyEnvelopeDto,
  EmbedKeyListDto,
  ListEmbedConfigsQueryDto,
  UpdateEmbedConfigDto,
  UpdateEmbedKeyDto,
  type EmbedConfigDto,
  type EmbedFeaturesDto,
  type EmbedKeyDto,
  type TrustedIssuerDto,
} from './dto/embed-configs.dto.js';
import { ModelCatalog } from './models/model-catalog.js';

const NOT_YOURS = 'No configuration of yours has this id (other users’ answer the same)';
const NOT_SEEN = 'No configuration of yours, or over a workspace you own, has this id (other users’ answer the same)';

const configDto = (c: EmbedConfigRecord): EmbedConfigDto => ({
  id: c.id,
  workspaceId: c.workspaceId,
  name: c.name,
  status: c.status,
  model: c.model,
  modelLocked: c.modelLocked,
  features: {
    feedbackMode: c.features?.feedbackMode ?? 'off',
    structuredQuestions: c.features?.structuredQuestions ?? false,
    webSearch: c.features?.webSearch ?? false,
    workspaceFiles: { exposeToParent: c.features?.exposeWorkspaceFilesToParent ?? false },
    theme: c.features?.theme || 'auto',
  },
  mainExpertId: c.mainExpertId,
  stateless: c.stateless,
  systemPrompt: c.systemPrompt,
  defaultContext: c.defaultContext.map((i) => ({ contextType: i.contextType, contextId: i.contextId })),
  trustedIssuer: c.trustedIssuer
    ? {
        issuer: c.trustedIssuer.issuer,
        audience: c.trustedIssuer.audience,
        ...(c.trustedIssuer.jwksUrl ? { jwksUrl: c.trustedIssuer.jwksUrl } : {}),
        ...(c.trustedIssuer.jwksJson ? { jwks: JSON.parse(c.trustedIssuer.jwksJson) as Record<string, unknown> } : {}),
      }
    : null,
  createdBy: c.createdBy,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

const keyDto = (k: EmbedKeyRecord): EmbedKeyDto => ({
  id: k.id,
  configId: k.configId,
  label: k.label,
  allowedDomains: k.allowedOrigins,
  public: k.public,
  expiresAt: k.expiresAt || null,
  tokenPrefix: k.tokenPrefix,
  hasScopedToken: k.hasScopedToken,
  revokedAt: k.revokedAt || null,
  createdAt: k.createdAt,
  updatedAt: k.updatedAt,
});

const features = (f: EmbedFeaturesDto | undefined) =>
  f && {
    feedbackMode: f.feedbackMode ?? '',
    structuredQuestions: f.structuredQuestions ?? false,
    webSearch: f.webSearch ?? false,
    exposeWorkspaceFilesToParent: f.workspaceFiles?.exposeToParent ?? false,
    theme: f.theme ?? '',
  };

const issuer = (i: TrustedIssuerDto | null | undefined) =>
  i
    ? {
        issuer: i.issuer,
        audience: i.audience,
        jwksUrl: i.jwksUrl ?? '',
        jwksJson: i.jwks ? JSON.stringify(i.jwks) : '',
      }
    : undefined;

/** Embed configurations and their domain-scoped keys (docs/chat.md#embed-configurations-and-keys). */
@ApiTags('Embed configurations')
@Controller('api/v2/configs')
export class EmbedConfigsController {
  constructor(
    private readonly client: ServiceClient,
    private readonly catalog: ModelCatalog,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List your embed configurations',
    description:
      "Oldest first; filters `workspaceId`, `status`. With `allCreators=true` and a `workspaceId`, a workspace owner lists every creator's configurations over it.",
  })
  @ApiOkResponse({ type: EmbedConfigListDto })
  async list(@Query() query: ListEmbedConfigsQueryDto): Promise<EmbedConfigListDto> {
    const limit = query.limit ?? CHAT_PAGE_DEFAULT;
    const offset = query.offset ?? 0;
    const { configs, totalCount } = await this.client.call(EmbedConfigsService.method.listConfigs, {
      workspaceId: query.workspaceId ?? '',
      status: query.status ?? '',
      limit,
      offset,
      allCreators: query.allCreators ?? false,
    });
    return { configs: configs.map(configDto), totalCount, limit, offset };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create an embed configuration',
    description:
      'Over a workspace you can read. A `trustedIssuer` needs a role that may manage the workspace (its owner): 403 FORBIDDEN otherwise, and it stops being in force at any turn where the creator no longer has that role.',
  })
  @ApiCreatedResponse({ type: EmbedConfigEnvelopeDto })
  async create(@Body() body: CreateEmbedConfigDto): Promise<EmbedConfigEnvelopeDto> {
    this.catalog.requireChatModelField(body.model, 'model');
    const { config } = await this.client.call(EmbedConfigsService.method.createConfig, {
      workspaceId: body.workspaceId,
      name: body.name,
      model: body.model ?? '',
      modelLocked: body.modelLocked ?? false,
      features: features(body.features),
      mainExpertId: body.mainExpertId ?? '',
      stateless: body.stateless ?? false,
      systemPrompt: body.systemPrompt ?? '',
      defaultContext: body.defaultContext ?? [],
      trustedIssuer: issuer(body.trustedIssuer),
    });
    return { config: configDto(config!) };
  }

  @Get(':configId')
  @ApiOperation({ summary: 'Fetch an embed configuration' })
  @ApiOkResponse({ type: EmbedConfigEnvelopeDto })
  @ApiNotFoundResponse({ description: NOT_SEEN })
  async get(@Param('configId') configId: string): Promise<EmbedConfigEnvelopeDto> {
    const { config } = await this.client.call(EmbedConfigsService.method.getConfig, { id: configId });
    return { config: configDto(config!) };
  }

  @Patch(':configId')
  @ApiOperation({
    summary: 'Update an embed configuration',
    description:
      'Fields present are replaced. Setting a `trustedIssuer` needs a role that may manage the workspace (403 FORBIDDEN otherwise); `null` removes it.',
  })
  @ApiOkResponse({ type: EmbedConfigEnvelopeDto })
  @ApiNotFoundResponse({ description: NOT_YOURS })
  async update(
    @Param('configId') configId: string,
    @Body() body: UpdateEmbedConfigDto,
  ): Promise<EmbedConfigEnvelopeDto> {
    this.catalog.requireChatModelField(body.model, 'model');
    const { config } = await this.client.call(EmbedConfigsService.method.updateConfig, {
      id: configId,
      name: body.name,
      model: body.model,
      modelLocked: body.modelLocked,
      features: features(body.features),
      mainExpertId: body.mainExpertId,
      stateless: body.stateless,
      systemPrompt: body.systemPrompt,
      defaultContext: body.defaultContext ?? [],
      setDefaultContext: body.defaultContext !== undefined,
      trustedIssuer: issuer(body.trustedIssuer),
      clearTrustedIssuer: body.trustedIssuer === null,
    });
    return { config: configDto(config!) };
  }

  @Delete(':configId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive an embed configuration', description: 'Its keys stop working.' })
  @ApiNoContentResponse({ description: 'Archived' })
  @ApiNotFoundResponse({ description: NOT_SEEN })
  async archive(@Param('configId') configId: string): Promise<void> {
    await this.client.call(EmbedConfigsService.method.archiveConfig, { id: configId });
  }

  @Get(':configId/keys')
  @ApiOperation({
    summary: 'List key metadata',
    description: "Never the token. The configuration's creator, or its workspace's owners.",
  })
  @ApiOkResponse({ type: EmbedKeyListDto })
  async keys(@Param('configId') configId: string): Promise<EmbedKeyListDto> {
    const { keys } = await this.client.call(EmbedConfigsService.method.listKeys, { configId });
    return { keys: keys.map(keyDto) };
  }

  @Post(':configId/keys')
  @NoStore()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a domain-scoped key',
    description: [
      'The token is in this answer only. A non-public key needs at least one allowed origin;',
      'a public one needs a creator who may manage the workspace (403 FORBIDDEN otherwise).',
      `At most ${EMBED_KEYS_PER_CONFIG_MAX} keys that are not revoked per configuration (409 QUOTA_EXCEEDED; revoked keys do not count).`,
    ].join(' '),
  })
  @ApiCreatedResponse({ type: CreatedEmbedKeyDto })
  async createKey(@Param('configId') configId: string, @Body() body: CreateEmbedKeyDto): Promise<CreatedEmbedKeyDto> {
    const { key, token } = await this.client.call(EmbedConfigsService.method.createKey, {
      configId,
      label: body.label,
      allowedOrigins: body.allowedDomains ?? [],
      public: body.public ?? false,
      expiresAt: body.expiresAt ?? '',
      scopedToken: body.scopedToken ?? '',
    });
    return { key: keyDto(key!), token };
  }

  @Patch(':configId/keys/:keyId')
  @ApiOperation({
    summary: 'Update a key',
    description: 'Turning a key public needs a creator who may manage the workspace (403 FORBIDDEN otherwise).',
  })
  @ApiOkResponse({ type: EmbedKeyEnvelopeDto })
  async updateKey(
    @Param('configId') configId: string,
    @Param('keyId') keyId: string,
    @Body() body: UpdateEmbedKeyDto,
  ): Promise<EmbedKeyEnvelopeDto> {
    const { key } = await this.client.call(EmbedConfigsService.method.updateKey, {
      configId,
      keyId,
      label: body.label,
      allowedOrigins: body.allowedDomains ?? [],
      setAllowedOrigins: body.allowedDomains !== undefined,
      public: body.public,
      expiresAt: body.expiresAt === null ? '' : body.expiresAt,
    });
    return { key: keyDto(key!) };
  }

  @Delete(':configId/keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a key', description: "The configuration's creator, or its workspace's owners." })
  @ApiNoContentResponse({ description: 'Revoked' })
  async revokeKey(@Param('configId') configId: string, @Param('keyId') keyId: string): Promise<void> {
    await this.client.call(EmbedConfigsService.method.revokeKey, { configId, keyId });
  }
}
