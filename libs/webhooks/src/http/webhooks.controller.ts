import { NoStore } from '@kw/platform-http';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { WebhooksService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import {
  CreateWebhookDto,
  DeliveriesQueryDto,
  DeliveryListDto,
  DeliveryResponseDto,
  RotateWebhookSecretDto,
  SecretRotatedDto,
  WebhookDeletedDto,
  TriggerResultDto,
  TriggerWebhooksDto,
  UpdateWebhookDto,
  WebhookCreatedDto,
  WebhookListDto,
  WebhookResponseDto,
} from './dto/webhook.dto.js';
import { NoBodyFieldsPipe } from './no-body-fields.pipe.js';
import { deliveryJson, headerList, outcomeJson, webhookJson } from './presenters.js';

const M = WebhooksService.method;
const MANAGE = 'Owners and collaborators (`webhooks:manage`); sessions and tokens with that scope.';

@ApiTags('Webhooks')
@Controller('api/workspaces/:id/webhooks')
export class WebhooksController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({ summary: 'List webhooks', description: MANAGE })
  @ApiOkResponse({ type: WebhookListDto })
  async list(@Param('id') id: string): Promise<WebhookListDto> {
    const { webhooks } = await this.client.call(M.listWebhooks, { workspaceId: id });
    return { success: true, items: webhooks.map(webhookJson), count: webhooks.length };
  }

  @Post()
  @NoStore()
  @ApiOperation({
    summary: 'Create a webhook',
    description: `Answers the signing secret once. The target is checked against the SSRF rules (400 otherwise). ${MANAGE}`,
  })
  @ApiCreatedResponse({ type: WebhookCreatedDto })
  async create(@Param('id') id: string, @Body() body: CreateWebhookDto): Promise<WebhookCreatedDto> {
    const { webhook, secret } = await this.client.call(M.createWebhook, {
      workspaceId: id,
      name: body.name,
      url: body.url,
      events: body.events,
      headers: headerList(body.headers),
      enabled: body.enabled ?? true,
    });
    return { success: true, webhook: webhookJson(webhook!), secret };
  }

  // Before ':webhookId' so "trigger" is never read as an id.
  @Post('trigger')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a signed sample event now',
    description: `One attempt per endpoint, recorded as a test delivery; answers each outcome. ${MANAGE}`,
  })
  @ApiOkResponse({ type: TriggerResultDto })
  async trigger(@Param('id') id: string, @Body() body: TriggerWebhooksDto): Promise<TriggerResultDto> {
    const { outcomes } = await this.client.call(
      M.triggerWebhooks,
      { workspaceId: id, eventType: body.eventType, webhookId: body.webhookId ?? '' },
      { timeoutMs: 60_000 },
    );
    return { success: true, eventType: body.eventType, outcomes: outcomes.map(outcomeJson) };
  }

  @Get(':webhookId')
  @ApiOperation({ summary: 'Get a webhook', description: MANAGE })
  @ApiOkResponse({ type: WebhookResponseDto })
  async get(@Param('id') id: string, @Param('webhookId') webhookId: string): Promise<WebhookResponseDto> {
    const { webhook } = await this.client.call(M.getWebhook, { workspaceId: id, webhookId });
    return { success: true, webhook: webhookJson(webhook!) };
  }

  @Patch(':webhookId')
  @ApiOperation({
    summary: 'Update a webhook',
    description: `Fields left out stay. A new URL is checked like on create. ${MANAGE}`,
  })
  @ApiOkResponse({ type: WebhookResponseDto })
  async update(
    @Param('id') id: string,
    @Param('webhookId') webhookId: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookResponseDto> {
    const { webhook } = await this.client.call(M.updateWebhook, {
      workspaceId: id,
      webhookId,
      name: body.name,
      url: body.url,
      events: body.events ?? [],
      setEvents: body.events !== undefined,
      headers: headerList(body.headers),
      setHeaders: body.headers !== undefined,
      enabled: body.enabled,
    });
    return { success: true, webhook: webhookJson(webhook!) };
  }

  @Delete(':webhookId')
  @ApiOperation({ summary: 'Delete a webhook', description: `Its pending deliveries are dropped. ${MANAGE}` })
  @ApiOkResponse({ type: WebhookDeletedDto })
  async delete(@Param('id') id: string, @Param('webhookId') webhookId: string): Promise<WebhookDeletedDto> {
    await this.client.call(M.deleteWebhook, { workspaceId: id, webhookId });
    return { success: true };
  }

  @Post(':webhookId/rotate-secret')
  @NoStore()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description: `Answers the new secret once; the previous one keeps signing (both signatures are sent) until \`previousSecretExpiresAt\`. ${MANAGE}`,
  })
  @ApiOkResponse({ type: SecretRotatedDto })
  async rotate(
    @Param('id') id: string,
    @Param('webhookId') webhookId: string,
    @Body() body: RotateWebhookSecretDto,
  ): Promise<SecretRotatedDto> {
    const { webhook, secret, previousSecretExpiresAt } = await this.client.call(M.rotateWebhookSecret, {
      workspaceId: id,
      webhookId,
      overlapSeconds: body?.overlapSeconds ?? 0,
    });
    return { success: true, webhook: webhookJson(webhook!), secret, previousSecretExpiresAt };
  }

  @Get(':webhookId/deliveries')
  @ApiOperation({
    summary: 'Delivery history',
    description: `Newest first, each with its attempts (status codes, timings) and next retry. ${MANAGE}`,
  })
  @ApiOkResponse({ type: DeliveryListDto })
  async deliveries(
    @Param('id') id: string,
    @Param('webhookId') webhookId: string,
    @Query() query: DeliveriesQueryDto,
  ): Promise<DeliveryListDto> {
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const { deliveries, totalCount } = await this.client.call(M.listWebhookDeliveries, {
      workspaceId: id,
      webhookId,
      status: query.status ?? '',
      limit,
      offset,
    });
    return { success: true, items: deliveries.map(deliveryJson), count: deliveries.length, totalCount, limit, offset };
  }

  @Get(':webhookId/deliveries/:deliveryId')
  @ApiOperation({ summary: 'One delivery with its attempts', description: MANAGE })
  @ApiOkResponse({ type: DeliveryResponseDto })
  async delivery(
    @Param('id') id: string,
    @Param('webhookId') webhookId: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<DeliveryResponseDto> {
    const { delivery } = await this.client.call(M.getWebhookDelivery, { workspaceId: id, webhookId, deliveryId });
    return { success: true, delivery: deliveryJson(delivery!) };
  }

  @Post(':webhookId/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Redeliver',
    description: `Queues one more attempt now with the same \`webhook-id\`. No body fields. ${MANAGE}`,
  })
  @ApiAcceptedResponse({ type: DeliveryResponseDto, description: 'One more attempt is queued' })
  @ApiBadRequestResponse({ description: 'VALIDATION_FAILED: the body has a field (none are taken)' })
  @ApiNotFoundResponse({ description: 'No such workspace, webhook or delivery (or not yours to see)' })
  @ApiConflictResponse({ description: 'CONFLICT: an attempt is running, or the endpoint is disabled' })
  async redeliver(
    @Param('id') id: string,
    @Param('webhookId') webhookId: string,
    @Param('deliveryId') deliveryId: string,
    @Body(NoBodyFieldsPipe) _body: unknown,
  ): Promise<DeliveryResponseDto> {
    const { delivery } = await this.client.call(M.redeliverWebhookDelivery, { workspaceId: id, webhookId, deliveryId });
    return { success: true, delivery: deliveryJson(delivery!) };
  }
}
