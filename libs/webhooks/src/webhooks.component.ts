import { defineComponent } from '@kw/platform-runtime';
import { WebhooksHttpModule } from './http/webhooks-http.module.js';
import { readCaFile } from './service/delivery/ca-file.js';
import { WebhooksServiceModule } from './service/webhooks-service.module.js';

/** The webhooks component (data plane): endpoint configuration and signed, at-least-once delivery of fragment events. */
export const webhooksComponent = defineComponent({
  name: 'webhooks',
  planes: ['data'],
  module: WebhooksServiceModule,
  httpModule: WebhooksHttpModule,
  // Before the database is opened: a CA file that cannot be read stops the start (exit 2).
  checkConfig: (config) => {
    if (config.WEBHOOKS_CA_FILE) readCaFile(config.WEBHOOKS_CA_FILE);
  },
});
