import { Module } from '@nestjs/common';
import { WebhooksController } from './webhooks.controller.js';

/** The HTTP side of the webhooks component, composed into the gateway (and the Leaf). */
@Module({ controllers: [WebhooksController] })
export class WebhooksHttpModule {}
