import { defineComponent } from '@kw/platform-runtime';

/** The workspaces component: control-plane service. Its module grows with the workspaces issues. */
export const workspacesComponent = defineComponent({ name: 'workspaces', planes: ['control'] });
