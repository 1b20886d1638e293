import { defineComponent } from '@kw/platform-runtime';

/** The search component: data-plane service. Its module grows with the search issues. */
export const searchComponent = defineComponent({ name: 'search', planes: ['data'] });
