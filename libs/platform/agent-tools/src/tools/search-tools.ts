import * as z from 'zod/v4';
import {
  AGENTIC_MAX_LEADS,
  AGENTIC_QUERY_MAX,
  FragmentListingService,
  FragmentsService,
  GRAPH_DEPTH_MAX,
  GRAPH_QUERY_MAX,
  GRAPH_SEARCH_LIMIT_MAX,
  GraphService,
  RETRIEVAL_DEPTH,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_MAX,
  SearchService,
  cutText,
  type SearchPage,
} from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { filesBesideSearch } from '@kw/platform-file-hits';
import { READ_ONLY, defineAgentTool, type AgentTool } from '../agent-tool.js';
import { fileHitOut } from './file-tools.js';
import { fragmentUri } from './fragment-tools.js';

const S = SearchService.method;

function hitsOut(page: SearchPage | undefined) {
  const hits = (page?.hits ?? []).map((h) => ({
    fragmentId: h.fragmentId,
    workspaceId: h.workspaceId,
    title: h.title,
    type: h.type,
    tags: h.tags,
    snippet: h.snippet,
    score: h.score,
    matchedBy: h.matchedBy,
    resourceUri: fragmentUri(h.fragmentId),
  }));
  return { hits, count: hits.length, totalCount: page?.totalCount ?? 0, mode: page?.mode ?? '' };
}

/** search, agentic_search and related: the search component's REST rules (search:read). */
export const searchTools: AgentTool[] = [
  defineAgentTool({
    id: 'search',
    title: 'Search',
    description:
      'Hybrid keyword + semantic search over one workspace, or over every workspace you can read when ' +
      'workspaceId is left out. Search syntax holds in every mode: "a phrase" is required, -word or -"a phrase" ' +
      'keeps fragments holding it out, OR gives alternatives. Answers snippets and ids; use get_fragment for content. The first page also ' +
      'names up to 5 uploaded files holding the words and none excluded (files, each with its workspaceId; read_workspace_file ' +
      'reads them, search_workspace_files searches only files). Without workspaceId, workspaces whose data lives in a ' +
      'hosted zone are not searched: skippedWorkspaces names them with their Leaf (endpointUrl; ask the Cloud for a ' +
      'handoff token and search there).',
    inputSchema: {
      query: z.string().min(1).max(SEARCH_QUERY_MAX),
      workspaceId: z.uuid().optional().describe('Leave out to search every readable workspace'),
      mode: z.enum(['hybrid', 'keyword', 'semantic']).optional(),
      tags: z.array(z.string().min(1)).max(20).optional(),
      limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
      offset: z
        .number()
        .int()
        .min(0)
        .max(RETRIEVAL_DEPTH)
        .optional()
        .describe(`At most ${RETRIEVAL_DEPTH}: results beyond are not reachable`),
    },
    annotations: READ_ONLY,
    async run(args, client) {
      const search = {
        query: args.query,
        mode: args.mode ?? 'hybrid',
        types: [],
        tags: args.tags ?? [],
        collectionId: '',
      };
      const paging = { limit: args.limit ?? 10, offset: args.offset ?? 0 };
      if (args.workspaceId) {
        // Two components, independent questions: asked side by side.
        const [{ page }, files] = await Promise.all([
          client.call(S.search, { workspaceId: args.workspaceId, search, ...paging }),
          filesBesideSearch(client, {
            workspaceId: args.workspaceId,
            query: args.query,
            offset: paging.offset,
            fragmentFilters: search.tags.length > 0,
          }),
        ]);
        return { ...hitsOut(page), files: files.map(fileHitOut) };
      }
      const [{ page, workspaceCount, skippedWorkspaces }, files] = await Promise.all([
        client.call(S.globalSearch, { search, ...paging }),
        filesBesideSearch(client, {
          query: args.query,
          offset: paging.offset,
          fragmentFilters: search.tags.length > 0,
        }),
      ]);
      // As GET /api/search/global: the workspaces whose data lives at a Leaf were not searched,
      // and are named with the way there rather than left out silently (docs/search.md).
      return {
        ...hitsOut(page),
        files: files.map(fileHitOut),
        workspaceCount,
        skippedWorkspaces: skippedWorkspaces.map((w) => ({
          workspaceId: w.workspaceId,
          name: w.name,
          hostedZoneId: w.hostedZoneId,
          endpointUrl: w.endpointUrl,
          reason: 'hosted_zone' as const,
        })),
      };
    },
  }),

  defineAgentTool({
    id: 'agentic_search',
    title: 'Agentic search',
    description:
      'Multi-step discovery in a workspace: expands the query, runs several retrievals, follows graph ' +
      'links, and answers leads (fragment id, title, why it matters, score) with the steps taken. Leads, ' +
      'not answers: read them with get_fragment.',
    inputSchema: {
      workspaceId: z.uuid(),
      query: z.string().min(1).max(AGENTIC_QUERY_MAX),
      maxLeads: z.number().int().min(1).max(AGENTIC_MAX_LEADS).optional(),
    },
    annotations: READ_ONLY,
    async run(args, client) {
      const res = await client.call(FragmentListingService.method.agenticSearch, {
        workspaceId: args.workspaceId,
        query: args.query,
        maxLeads: args.maxLeads ?? 0,
      });
      return {
        leads: res.leads.map((l) => ({
          fragmentId: l.fragmentId,
          title: l.title,
          why: l.why,
          score: l.score,
          resourceUri: fragmentUri(l.fragmentId),
        })),
        steps: res.steps.map((s) => ({ kind: s.kind, detail: s.detail, terms: s.terms, found: s.found })),
        expandedTerms: res.expandedTerms,
      };
    },
  }),

  defineAgentTool({
    id: 'related',
    title: 'Related knowledge (graph)',
    description:
      'Graph neighbours: the entities a fragment (or a query) mentions, the entities linked to them, and ' +
      'the fragments that mention those. Give fragmentId or query.',
    inputSchema: {
      workspaceId: z.uuid(),
      fragmentId: z.uuid().optional(),
      query: z.string().min(1).max(GRAPH_QUERY_MAX).optional(),
      depth: z.number().int().min(1).max(GRAPH_DEPTH_MAX).optional(),
      limit: z.number().int().min(1).max(GRAPH_SEARCH_LIMIT_MAX).optional(),
    },
    annotations: READ_ONLY,
    async run(args, client) {
      if (!args.fragmentId === !args.query) throw badRequest('Give exactly one of fragmentId or query');
      let query = args.query ?? '';
      if (args.fragmentId) {
        const { fragment } = await client.call(FragmentsService.method.getFragment, { fragmentId: args.fragmentId });
        if (fragment!.workspaceId !== args.workspaceId) throw badRequest('The fragment belongs to another workspace');
        // A long title and many tags can pass the graph's bound; the names come first anyway.
        query = cutText([fragment!.title, ...fragment!.tags].join(' '), GRAPH_QUERY_MAX);
      }
      const res = await client.call(GraphService.method.graphRetrieve, {
        workspaceId: args.workspaceId,
        query,
        depth: args.depth ?? 1,
        limit: args.limit ?? 10,
      });
      const node = (n: { id: string; name: string; kind: string }) => ({ id: n.id, name: n.name, kind: n.kind });
      // The seeds are among the nodes too: each entity once, seeds first.
      const entities = new Map<string, ReturnType<typeof node>>();
      for (const n of [...res.seeds, ...res.nodes]) if (!entities.has(n.id)) entities.set(n.id, node(n));
      return {
        entities: [...entities.values()],
        relations: res.edges.map((e) => ({
          sourceId: e.sourceId,
          targetId: e.targetId,
          kind: e.kind,
          weight: e.weight,
        })),
        fragments: res.fragments
          .filter((f) => f.id !== args.fragmentId)
          .map((f) => ({ fragmentId: f.id, title: f.title, score: f.score, resourceUri: fragmentUri(f.id) })),
      };
    },
  }),
];
