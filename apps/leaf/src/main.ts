import { leafGatewayComponent, runPlatform } from '@kw/platform-runtime';
import { fragmentsComponent } from '@kw/fragments';
import { searchComponent } from '@kw/search';
import { webhooksComponent } from '@kw/webhooks';

// The Leaf: a hosted zone's data plane, deployed by the customer. It runs the data-plane
// components in one process on its own database (PGlite by default, DATABASE_URL otherwise).
// Files are not part of Hosted Zone V1 (spec: Files).
await runPlatform({
  binary: 'leaf',
  components: [leafGatewayComponent, fragmentsComponent, searchComponent, webhooksComponent],
  defaultTargets: ['all'],
});
