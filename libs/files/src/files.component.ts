import { defineComponent } from '@kw/platform-runtime';
import { FilesHttpModule } from './http/files-http.module.js';
import { FilesServiceModule } from './service/files-service.module.js';

/**
 * The files component (data plane of the Cloud; not part of a Leaf: Hosted Zone V1 has no
 * files): metadata, processing and search of workspace files, whose bytes the HTTP side streams
 * to and from blob storage. docs/files.md.
 */
export const filesComponent = defineComponent({
  name: 'files',
  planes: ['data'],
  module: FilesServiceModule,
  httpModule: FilesHttpModule,
  routeBodies: (config) => ({
    streamedMultipart: [{ method: 'POST', url: '/api/files/upload' }],
    bodyLimits: [{ method: 'POST', url: '/api/workspace-files/bytes', bytes: config.FILES_PROXY_BODY_LIMIT_BYTES }],
  }),
});
