import { runPlatform } from '@kw/platform-runtime';
import { agentAuthComponent } from '@kw/agent-auth';

// One process running the agent-auth component (distributed mode).
await runPlatform({ binary: 'agent-auth', components: [agentAuthComponent], defaultTargets: ['agent-auth'] });
