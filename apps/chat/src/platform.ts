import { runPlatform } from '@kw/platform-runtime';
import { chatComponent } from '@kw/chat';

// One process running the chat component (distributed mode).
await runPlatform({ binary: 'chat', components: [chatComponent], defaultTargets: ['chat'] });
