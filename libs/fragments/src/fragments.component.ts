import { defineComponent } from '@kw/platform-runtime';

/** The fragments component: data-plane service. Its module grows with the fragments issues. */
export const fragmentsComponent = defineComponent({ name: 'fragments', planes: ['data'] });
