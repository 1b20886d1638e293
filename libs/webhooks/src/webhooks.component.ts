import { defineComponent } from '@kw/platform-runtime';
import { WebhooksHttpModule } from './http/webhooks-http.module.js';
import { WebhooksServiceModule } from './service/webhooks-service.module.js';

/** The webhooks component (data plane): endpoint configuration and signed, at-least-once delivery of fragment events. */
export const webhooksComponent = defineComponent({
  name: 'webhooks',
  planes: ['data'],
  module: WebhooksServiceModule,
  httpModule: WebhooksHttpModule,
});
