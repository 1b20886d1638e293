import { runPlatform } from '@kw/platform-runtime';
import { fragmentsComponent } from '@kw/fragments';
import { leafEdgeComponent } from '@kw/leaf';
import { McpHttpModule } from '@kw/mcp';
import { searchComponent } from '@kw/search';
import { webhooksComponent } from '@kw/webhooks';

// The Leaf: a hosted zone's data plane, deployed by the customer. It runs the data-plane
// components in one process on its own database (PGlite by default, DATABASE_URL otherwise),
// plus the Leaf's edge: enrollment with the Cloud (CLOUD_URL, ENROLLMENT_TOKEN), heartbeats
// and placements, and handoff-token authentication. No Cloud-only routes (accounts, tokens,
// workspaces, hosted zones) and no files: Files are not part of Hosted Zone V1 (spec: Files).
await runPlatform({
  binary: 'leaf',
  components: [leafEdgeComponent, fragmentsComponent, searchComponent, webhooksComponent],
  defaultTargets: ['all'],
  // The same MCP endpoint as the Cloud's, for this zone's workspaces (handoff tokens).
  edgeModules: [McpHttpModule.forLeaf()],
});
