import { defineComponent } from '@kw/platform-runtime';
import { WorkspacesHttpModule } from './http/workspaces-http.module.js';
import { WorkspacesServiceModule } from './service/workspaces-service.module.js';

/** The workspaces component: workspaces, members, invitations, subscriptions, settings, notifications. */
export const workspacesComponent = defineComponent({
  name: 'workspaces',
  planes: ['control'],
  module: WorkspacesServiceModule,
  httpModule: WorkspacesHttpModule,
});
