import { runPlatform } from '@kw/platform-runtime';
import { workspacesComponent } from '@kw/workspaces';

// One process running the workspaces component (distributed mode).
await runPlatform({ binary: 'workspaces', components: [workspacesComponent], defaultTargets: ['workspaces'] });
