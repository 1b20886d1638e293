import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { VaultService, type AuthContext } from '@kw/contracts';
import { CurrentAuth } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import {
  CreateSecretDto,
  SecretAccessListDto,
  SecretAccessQueryDto,
  SecretEnvelopeDto,
  SecretListDto,
  UpdateSecretDto,
} from './dto/vault.dto.js';
import { ProviderKeys } from './models/provider-keys.js';
import { secretAccessDto, secretDto } from './presenters.js';

const NOT_YOURS = 'No secret of yours has this id (other users\u2019 secrets answer the same)';

/** The secret vault: a user's secrets, values write-only (docs/chat.md#the-vault). */
@ApiTags('Vault')
@Controller('api/v1/vault')
export class VaultController {
  constructor(
    private readonly client: ServiceClient,
    private readonly keys: ProviderKeys,
  ) {}

  @Get('secrets')
  @ApiOperation({ summary: 'List your secrets (metadata only)' })
  @ApiOkResponse({ type: SecretListDto })
  async list(): Promise<SecretListDto> {
    const { secrets } = await this.client.call(VaultService.method.listSecrets, {});
    return { secrets: secrets.map(secretDto) };
  }

  @Post('secrets')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a secret',
    description:
      'The value is encrypted at rest (AES-256-GCM under a data key of its own, wrapped by the master key) and never returned. A secret of type `api-key` with a `provider` is used for your calls to that provider instead of the operator\u2019s key.',
  })
  @ApiCreatedResponse({ type: SecretEnvelopeDto })
  @ApiConflictResponse({ description: '`SECRET_NAME_TAKEN`: you already have a secret of that name' })
  async create(@Body() body: CreateSecretDto, @CurrentAuth() auth: AuthContext): Promise<SecretEnvelopeDto> {
    const { secret } = await this.client.call(VaultService.method.createSecret, {
      name: body.name,
      type: body.type,
      provider: body.provider ?? '',
      value: body.value,
      description: body.description ?? '',
    });
    this.keys.forget(auth.userId);
    return { secret: secretDto(secret!) };
  }

  @Get('secrets/:id')
  @ApiOperation({ summary: 'Read a secret\u2019s metadata' })
  @ApiOkResponse({ type: SecretEnvelopeDto })
  @ApiNotFoundResponse({ description: NOT_YOURS })
  async get(@Param('id') id: string): Promise<SecretEnvelopeDto> {
    const { secret } = await this.client.call(VaultService.method.getSecret, { id });
    return { secret: secretDto(secret!) };
  }

  @Patch('secrets/:id')
  @ApiOperation({ summary: 'Update a secret', description: 'Fields present are changed; `value` replaces the value.' })
  @ApiOkResponse({ type: SecretEnvelopeDto })
  @ApiNotFoundResponse({ description: NOT_YOURS })
  async update(
    @Param('id') id: string,
    @Body() body: UpdateSecretDto,
    @CurrentAuth() auth: AuthContext,
  ): Promise<SecretEnvelopeDto> {
    const { secret } = await this.client.call(VaultService.method.updateSecret, { id, ...body });
    this.keys.forget(auth.userId);
    return { secret: secretDto(secret!) };
  }

  @Delete('secrets/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a secret' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: NOT_YOURS })
  async delete(@Param('id') id: string, @CurrentAuth() auth: AuthContext): Promise<void> {
    await this.client.call(VaultService.method.deleteSecret, { id });
    this.keys.forget(auth.userId);
  }

  @Get('accesses')
  @ApiOperation({
    summary: 'The audit log of your secrets',
    description:
      'Every read of one of your values by the platform (a bring-your-own-key model call, for example), newest first.',
  })
  @ApiOkResponse({ type: SecretAccessListDto })
  async accesses(@Query() query: SecretAccessQueryDto): Promise<SecretAccessListDto> {
    const { accesses } = await this.client.call(VaultService.method.listSecretAccesses, {
      secretId: query.secretId ?? '',
      limit: query.limit ?? 0,
    });
    return { accesses: accesses.map(secretAccessDto) };
  }
}
