import { defineComponent } from '@kw/platform-runtime';
import { AgentAuthHttpModule } from './http/agent-auth-http.module.js';
import { AgentAuthServiceModule } from './service/agent-auth-service.module.js';
import { SET_MEDIA_TYPE } from './domain/agent-auth/oauth.js';

/**
 * The agent-auth component (control plane): accounts, sessions, personal access tokens and
 * agent authentication (docs/agent-authentication.md).
 * Its HTTP module also provides the gateway's global AuthGuard.
 */
export const agentAuthComponent = defineComponent({
  name: 'agent-auth',
  planes: ['control'],
  module: AgentAuthServiceModule,
  httpModule: AgentAuthHttpModule,
  routeBodies: () => ({
    formUrlEncoded: [
      { method: 'POST', url: '/oauth2/token' },
      { method: 'POST', url: '/oauth2/revoke' },
    ],
    jwtBodies: [{ method: 'POST', url: '/agent/event/notify', contentType: SET_MEDIA_TYPE }],
  }),
});
