import * as z from 'zod/v4';
import {
  FRAGMENT_CONTENT_MAX_BYTES,
  FRAGMENT_KEY_MAX,
  FRAGMENT_LIST_OFFSET_MAX,
  FRAGMENT_SUMMARY_MAX,
  FRAGMENT_TAG_MAX,
  FRAGMENT_TAGS_MAX,
  FRAGMENT_TITLE_MAX,
  FragmentsService,
  cutText,
  type Fragment,
} from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { LIST_LIMIT_MAX, PREVIEW_CHARS } from '../tool-limits.js';
import { READ_ONLY, WRITES, defineAgentTool, type AgentTool } from '../agent-tool.js';

const M = FragmentsService.method;
const uuid = (what: string) => z.uuid().describe(what);
const tags = z.array(z.string().min(1).max(FRAGMENT_TAG_MAX)).max(FRAGMENT_TAGS_MAX);

/** A fragment as an MCP resource (kw://fragments/{id}): every tool answer that names a fragment carries it. */
export const fragmentUri = (fragmentId: string): string => `kw://fragments/${fragmentId}`;

/** A fragment as tools answer it: whole (get) or with a content preview (lists). */
export function fragmentOut(f: Fragment, whole: boolean): Record<string, unknown> {
  return {
    id: f.id,
    workspaceId: f.workspaceId,
    fragmentTypeId: f.fragmentTypeId,
    title: f.title,
    ...(whole
      ? { content: f.content }
      : { preview: f.content.length > PREVIEW_CHARS ? `${cutText(f.content, PREVIEW_CHARS)}…` : f.content }),
    summary: f.summary ?? null,
    tags: f.tags,
    key: f.key ?? null,
    status: f.status,
    version: f.version,
    createdVia: f.createdVia,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
    archivedAt: f.archivedAt || null,
    resourceUri: fragmentUri(f.id),
  };
}

/** get/list/create/update/archive fragments and list fragment types: the fragments REST routes' rules. */
export const fragmentTools: AgentTool[] = [
  defineAgentTool({
    id: 'get_fragment',
    title: 'Get a fragment',
    description: 'One fragment with its full content, summary, tags and version.',
    inputSchema: { fragmentId: uuid('The fragment id') },
    annotations: READ_ONLY,
    async run({ fragmentId }, client) {
      return { fragment: fragmentOut((await client.call(M.getFragment, { fragmentId })).fragment!, true) };
    },
  }),

  defineAgentTool({
    id: 'list_fragments',
    title: 'List fragments',
    description:
      'Fragments of a workspace, oldest first by default, with a content preview. Page with limit/offset until offset + count >= totalCount.',
    inputSchema: {
      workspaceId: uuid('The workspace id'),
      fragmentTypeId: uuid('Only this fragment type').optional(),
      tags: tags.optional().describe('Every tag listed must be on the fragment'),
      status: z.enum(['processing', 'published']).optional(),
      includeArchived: z.boolean().optional(),
      sort: z.enum(['createdAt', 'updatedAt', 'title']).optional(),
      order: z.enum(['asc', 'desc']).optional(),
      limit: z.number().int().min(1).max(LIST_LIMIT_MAX).optional().describe(`At most ${LIST_LIMIT_MAX}; default 20`),
      offset: z.number().int().min(0).max(FRAGMENT_LIST_OFFSET_MAX).optional(),
    },
    annotations: READ_ONLY,
    async run(args, client) {
      const limit = args.limit ?? 20;
      const offset = args.offset ?? 0;
      const { items, totalCount } = await client.call(M.listFragments, {
        workspaceId: args.workspaceId,
        fragmentTypeId: args.fragmentTypeId,
        status: args.status,
        tags: args.tags ?? [],
        includeArchived: args.includeArchived ?? false,
        // The service's floor is 5; fewer are cut here.
        limit: Math.max(limit, 5),
        offset,
        sort: args.sort ?? 'createdAt',
        order: args.order ?? 'asc',
      });
      const fragments = items.slice(0, limit).map((f) => fragmentOut(f, false));
      return { fragments, count: fragments.length, totalCount, limit, offset };
    },
  }),

  defineAgentTool({
    id: 'create_fragment',
    title: 'Create a fragment',
    description:
      'Stores new knowledge in a workspace (recorded as created via MCP). Enrichment (summary, tags, ' +
      'embedding, graph) runs afterwards: status is "processing" first. Use list_fragment_types for a type ' +
      'id.',
    inputSchema: {
      workspaceId: uuid('The workspace id'),
      fragmentTypeId: uuid('The fragment type id (list_fragment_types)'),
      title: z.string().min(1).max(FRAGMENT_TITLE_MAX),
      content: z.string().min(1).max(FRAGMENT_CONTENT_MAX_BYTES).describe('Markdown'),
      summary: z.string().max(FRAGMENT_SUMMARY_MAX).optional().describe('Leave out to have one generated'),
      tags: tags.optional().describe('Leave out to have tags generated'),
      key: z
        .string()
        .min(1)
        .max(FRAGMENT_KEY_MAX)
        .optional()
        .describe('Your own unique key in the workspace (for imports)'),
    },
    annotations: WRITES,
    async run(args, client) {
      const { fragment } = await client.call(M.createFragment, {
        workspaceId: args.workspaceId,
        fragmentTypeId: args.fragmentTypeId,
        title: args.title,
        content: args.content,
        summary: args.summary,
        tagsSupplied: args.tags !== undefined,
        tags: args.tags ?? [],
        enhanceTags: false,
        createdVia: 'mcp',
        key: args.key,
      });
      return { fragment: fragmentOut(fragment!, false) };
    },
  }),

  defineAgentTool({
    id: 'update_fragment',
    title: 'Update a fragment',
    description:
      "Changes fields of a fragment, or appends/prepends text. Pass the version you read as expectedVersion to avoid overwriting someone else's change (a conflict is reported).",
    inputSchema: {
      fragmentId: uuid('The fragment id'),
      title: z.string().min(1).max(FRAGMENT_TITLE_MAX).optional(),
      content: z.string().min(1).max(FRAGMENT_CONTENT_MAX_BYTES).optional().describe('Replaces the whole content'),
      append: z
        .string()
        .min(1)
        .max(FRAGMENT_CONTENT_MAX_BYTES)
        .optional()
        .describe('Text added at the end (instead of content)'),
      prepend: z
        .string()
        .min(1)
        .max(FRAGMENT_CONTENT_MAX_BYTES)
        .optional()
        .describe('Text added at the start (instead of content)'),
      summary: z.string().max(FRAGMENT_SUMMARY_MAX).optional().describe('"" clears it and has one generated'),
      tags: tags.optional().describe('Replaces the tags'),
      expectedVersion: z.number().int().min(1).optional(),
    },
    annotations: { ...WRITES, idempotentHint: false },
    async run(args, client) {
      if (args.content !== undefined && (args.append !== undefined || args.prepend !== undefined)) {
        throw badRequest('content cannot be combined with append or prepend');
      }
      const operations = [
        ...(args.prepend !== undefined ? [{ op: 'prepend', text: args.prepend, heading: '' }] : []),
        ...(args.append !== undefined ? [{ op: 'append', text: args.append, heading: '' }] : []),
      ];
      const { fragment } = await client.call(M.updateFragment, {
        fragmentId: args.fragmentId,
        title: args.title,
        content: args.content,
        summary: args.summary,
        tagsSupplied: args.tags !== undefined,
        tags: args.tags ?? [],
        operations,
        expectedVersion: args.expectedVersion ?? 0,
      });
      return { fragment: fragmentOut(fragment!, false) };
    },
  }),

  defineAgentTool({
    id: 'archive_fragment',
    title: 'Archive a fragment',
    description:
      'Archives a fragment (hidden from listings and search; owners can still see it). Not a permanent delete.',
    inputSchema: { fragmentId: uuid('The fragment id') },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run({ fragmentId }, client) {
      return {
        fragment: fragmentOut((await client.call(M.deleteFragment, { fragmentId, permanent: false })).fragment!, false),
      };
    },
  }),

  defineAgentTool({
    id: 'list_fragment_types',
    title: 'List fragment types',
    description: 'The fragment types of a workspace (note, runbook...), for create_fragment.',
    inputSchema: { workspaceId: uuid('The workspace id') },
    annotations: READ_ONLY,
    async run({ workspaceId }, client) {
      const { fragmentTypes } = await client.call(M.listFragmentTypes, { workspaceId });
      return {
        fragmentTypes: fragmentTypes.map((t) => ({
          id: t.id,
          key: t.key,
          name: t.name,
          description: t.description,
          isDefault: t.isDefault,
        })),
      };
    },
  }),
];
