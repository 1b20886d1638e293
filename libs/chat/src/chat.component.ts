import { defineComponent } from '@kw/platform-runtime';

/** The chat component: control-plane service. Its module grows with the chat issues. */
export const chatComponent = defineComponent({ name: 'chat', planes: ['control'] });
