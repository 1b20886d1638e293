import * as z from 'zod/v4';
import { FragmentsService } from '@kw/contracts';
import { runTool } from '../tool-context.js';
import { IDS_MAX } from './tool-limits.js';
import { READ_ONLY, WRITES, type ToolGroup } from './tool-registry.js';

const M = FragmentsService.method;

/** list_collections and add_to_collection: the collections REST routes' rules. */
export const collectionTools: ToolGroup = (server, client) => {
  server.registerTool(
    'list_collections',
    {
      title: 'List collections',
      description: 'The collections of a workspace with their fragment counts.',
      inputSchema: { workspaceId: z.uuid().describe('The workspace id') },
      annotations: READ_ONLY,
    },
    async ({ workspaceId }, extra) =>
      runTool(extra, async () => {
        const { collections } = await client.call(M.listCollections, { workspaceId });
        return {
          collections: collections.map((c) => ({
            id: c.id,
            name: c.name,
            description: c.description,
            fragmentCount: c.fragmentCount,
            createdAt: c.createdAt,
          })),
        };
      }),
  );

  server.registerTool(
    'add_to_collection',
    {
      title: 'Add fragments to a collection',
      description:
        'Adds fragments of the same workspace to a collection (already present ones are skipped). Unknown fragment ids are reported and nothing is added.',
      inputSchema: {
        workspaceId: z.uuid().describe('The workspace id'),
        collectionId: z.uuid().describe('The collection id (list_collections)'),
        fragmentIds: z.array(z.uuid()).min(1).max(IDS_MAX),
      },
      annotations: { ...WRITES, idempotentHint: true },
    },
    async ({ workspaceId, collectionId, fragmentIds }, extra) =>
      runTool(extra, async () => {
        const { added } = await client.call(M.addCollectionFragments, { workspaceId, collectionId, fragmentIds });
        return { added, collectionId };
      }),
  );
};
