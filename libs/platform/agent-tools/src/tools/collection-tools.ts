import * as z from 'zod/v4';
import { FragmentsService } from '@kw/contracts';
import { IDS_MAX } from '../tool-limits.js';
import { READ_ONLY, WRITES, defineAgentTool, type AgentTool } from '../agent-tool.js';

const M = FragmentsService.method;

/** list_collections and add_to_collection: the collections REST routes' rules. */
export const collectionTools: AgentTool[] = [
  defineAgentTool({
    id: 'list_collections',
    title: 'List collections',
    description: 'The collections of a workspace with their fragment counts.',
    inputSchema: { workspaceId: z.uuid().describe('The workspace id') },
    annotations: READ_ONLY,
    async run({ workspaceId }, client) {
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
    },
  }),

  defineAgentTool({
    id: 'add_to_collection',
    title: 'Add fragments to a collection',
    description:
      'Adds fragments of the same workspace to a collection (already present ones are skipped). Unknown fragment ids are reported and nothing is added.',
    inputSchema: {
      workspaceId: z.uuid().describe('The workspace id'),
      collectionId: z.uuid().describe('The collection id (list_collections)'),
      fragmentIds: z.array(z.uuid()).min(1).max(IDS_MAX),
    },
    annotations: { ...WRITES, idempotentHint: true },
    async run({ workspaceId, collectionId, fragmentIds }, client) {
      const { added } = await client.call(M.addCollectionFragments, { workspaceId, collectionId, fragmentIds });
      return { added, collectionId };
    },
  }),
];
