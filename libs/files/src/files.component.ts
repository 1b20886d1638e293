import { defineComponent } from '@kw/platform-runtime';

/** The files component: data-plane service. Its module grows with the files issues. */
export const filesComponent = defineComponent({ name: 'files', planes: ['data'] });
