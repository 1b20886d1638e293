import { runPlatform } from '@kw/platform-runtime';
import { filesComponent } from '@kw/files';

// One process running the files component (distributed mode).
await runPlatform({ binary: 'files', components: [filesComponent], defaultTargets: ['files'] });
