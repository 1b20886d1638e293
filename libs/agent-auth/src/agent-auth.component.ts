import { defineComponent } from '@kw/platform-runtime';

/** The agent-auth component: control-plane service. Its module grows with the agent-auth issues. */
export const agentAuthComponent = defineComponent({ name: 'agent-auth', planes: ['control'] });
