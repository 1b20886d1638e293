import { gatewayComponent, runPlatform } from '@kw/platform-runtime';
import { agentAuthComponent } from '@kw/agent-auth';
import { chatComponent } from '@kw/chat';
import { filesComponent } from '@kw/files';
import { fragmentsComponent } from '@kw/fragments';
import { McpHttpModule } from '@kw/mcp';
import { searchComponent } from '@kw/search';
import { webhooksComponent } from '@kw/webhooks';
import { workspacesComponent } from '@kw/workspaces';

// The gateway binary knows every component: embedded mode (the default) starts them all in
// this process; distributed mode starts only the gateway unless TARGETS says otherwise.
await runPlatform({
  binary: 'gateway',
  components: [
    gatewayComponent,
    workspacesComponent,
    agentAuthComponent,
    chatComponent,
    fragmentsComponent,
    filesComponent,
    searchComponent,
    webhooksComponent,
  ],
  defaultTargets: (config) => (config.RUN_MODE === 'embedded' ? ['all'] : ['gateway']),
  // The MCP endpoint calls several components; it lives at the edge, wherever the API is served.
  edgeModules: [McpHttpModule.forCloud()],
});
