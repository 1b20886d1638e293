import { runPlatform } from '@kw/platform-runtime';
import { webhooksComponent } from '@kw/webhooks';

// One process running the webhooks component (distributed mode).
await runPlatform({ binary: 'webhooks', components: [webhooksComponent], defaultTargets: ['webhooks'] });
