import { BULK_FRAGMENTS_BODY_BYTES } from '@kw/contracts';
import { defineComponent } from '@kw/platform-runtime';
import { WORKSPACE_ARCHIVE_MAX_BYTES } from './fragments-limits.js';
import { FragmentsHttpModule } from './http/fragments-http.module.js';
import { FragmentsServiceModule } from './service/fragments-service.module.js';

/** The fragments component (data plane): fragment types, memory fragments and collections. */
export const fragmentsComponent = defineComponent({
  name: 'fragments',
  planes: ['data'],
  module: FragmentsServiceModule,
  httpModule: FragmentsHttpModule,
  // The bulk route carries many fragments; every other JSON route keeps BODY_LIMIT_BYTES.
  routeBodies: () => ({
    bodyLimits: [{ method: 'POST', url: '/api/memory-fragments/bulk', bytes: BULK_FRAGMENTS_BODY_BYTES }],
    // An import's archive streams from the request to blob storage (docs/portable-workspaces.md).
    streamedBinary: [
      {
        method: 'POST',
        url: '/api/workspaces/:id/imports',
        contentType: 'application/zip',
        maxBytes: WORKSPACE_ARCHIVE_MAX_BYTES,
      },
    ],
  }),
});
