import { defineComponent } from '@kw/platform-runtime';
import { AgentAuthHttpModule } from './http/agent-auth-http.module.js';
import { AgentAuthServiceModule } from './service/agent-auth-service.module.js';

/**
 * The agent-auth component (control plane): accounts, sessions and personal access tokens.
 * Its HTTP module also provides the gateway's global AuthGuard.
 */
export const agentAuthComponent = defineComponent({
  name: 'agent-auth',
  planes: ['control'],
  module: AgentAuthServiceModule,
  httpModule: AgentAuthHttpModule,
});
