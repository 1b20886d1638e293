import { runPlatform } from '@kw/platform-runtime';
import { fragmentsComponent } from '@kw/fragments';

// One process running the fragments component (distributed mode).
await runPlatform({ binary: 'fragments', components: [fragmentsComponent], defaultTargets: ['fragments'] });
