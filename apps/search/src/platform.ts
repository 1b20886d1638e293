import { runPlatform } from '@kw/platform-runtime';
import { searchComponent } from '@kw/search';

// One process running the search component (distributed mode).
await runPlatform({ binary: 'search', components: [searchComponent], defaultTargets: ['search'] });
