import { defineComponent } from '@kw/platform-runtime';

/** The webhooks component: data-plane service. Its module grows with the webhooks issues. */
export const webhooksComponent = defineComponent({ name: 'webhooks', planes: ['data'] });
