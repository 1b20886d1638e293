import { HandoffCache } from './handoff-cache.js';
import type { FetchLike } from './http.js';
import { requestJson } from './http.js';
import { fuseRankings } from './fuse-rankings.js';
import type {
  FederatedSearchResults,
  GlobalSearchResults,
  MoveWorkspaceOptions,
  SearchOptions,
  Workspace,
  WorkspaceMove,
} from './types.js';
import { WorkspaceClient, type ClientParts } from './workspace-client.js';
import { moveWorkspace } from './workspace-move.js';

export interface KnowledgeClientOptions {
  /** The Cloud's base URL, e.g. https://kw.example.com */
  baseUrl: string;
  /** A personal access token (kwp_...). */
  token: string;
  /** A fetch implementation (default: the global fetch). */
  fetch?: FetchLike;
}

/**
 * The entry point: account-level calls go to the Cloud; `workspace(id)` gives a client of one
 * workspace's data that follows the hosted zone boundary by itself.
 */
export class KnowledgeClient {
  private readonly parts: ClientParts;
  private readonly workspaceClients = new Map<string, WorkspaceClient>();

  constructor(options: KnowledgeClientOptions) {
    this.parts = {
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      cloudUrl: options.baseUrl,
      token: options.token,
      handoffs: new HandoffCache(),
    };
  }

  workspace(workspaceId: string): WorkspaceClient {
    let client = this.workspaceClients.get(workspaceId);
    if (!client) {
      client = new WorkspaceClient(this.parts, workspaceId);
      this.workspaceClients.set(workspaceId, client);
    }
    return client;
  }

  /** The Cloud's global search: every readable workspace it holds, and the hosted ones it skipped. */
  async globalSearch(q: string, options: SearchOptions = {}): Promise<GlobalSearchResults> {
    return requestJson<GlobalSearchResults>(
      this.parts.fetch,
      this.parts.cloudUrl,
      this.parts.token,
      'api/search/global',
      {
        query: { q, mode: options.mode, limit: options.limit, offset: options.offset },
      },
    );
  }

  /**
   * Searches everywhere the caller can read: the Cloud's global search, and each hosted
   * workspace it skipped on its own Leaf (with a handoff token; the content never passes through
   * the Cloud), then merges the lists by reciprocal rank (scores of different planes are not
   * comparable; ranks are). A Leaf that fails is reported in `leaves`, not thrown.
   */
  async searchEverywhere(q: string, options: Omit<SearchOptions, 'offset'> = {}): Promise<FederatedSearchResults> {
    const limit = options.limit ?? 20;
    const cloud = await this.globalSearch(q, { mode: options.mode, limit });
    const leaves = await Promise.all(
      cloud.skippedWorkspaces.map(async (skipped) => {
        try {
          const found = await this.workspace(skipped.workspaceId).search(q, { mode: options.mode, limit });
          return { skipped, found };
        } catch (err) {
          return { skipped, error: err instanceof Error ? err.message : String(err) };
        }
      }),
    );
    return {
      results: fuseRankings([cloud.results, ...leaves.map((l) => l.found?.results ?? [])], limit),
      mode: cloud.mode,
      cloud: { workspaceCount: cloud.workspaceCount, total: cloud.total },
      leaves: leaves.map(({ skipped, found, error }) => ({
        workspaceId: skipped.workspaceId,
        endpointUrl: skipped.endpointUrl,
        total: found?.total ?? 0,
        ...(error !== undefined ? { error } : {}),
      })),
    };
  }

  /** Creates a workspace; with `hostedZoneId` it is placed on that zone (status `processing` until the Leaf is ready). */
  async createWorkspace(input: { name: string; description?: string; hostedZoneId?: string }): Promise<Workspace> {
    return (
      await requestJson<{ workspace: Workspace }>(
        this.parts.fetch,
        this.parts.cloudUrl,
        this.parts.token,
        'api/workspaces',
        { method: 'POST', body: input },
      )
    ).workspace;
  }

  /**
   * Moves a workspace to a hosted zone (`hostedZoneId`) or back to the Cloud (`null`), and
   * answers the finished move (docs/portable-workspaces.md#moving). The workspace is read-only
   * meanwhile; a failure before the placement switches aborts the move and throws, leaving the
   * workspace where it was.
   */
  async moveWorkspace(
    workspaceId: string,
    hostedZoneId: string | null,
    options: MoveWorkspaceOptions = {},
  ): Promise<WorkspaceMove> {
    try {
      return await moveWorkspace(this.parts, workspaceId, hostedZoneId, options);
    } finally {
      // Its placement and handoff tokens changed: learn them again at the next call.
      this.workspaceClients.delete(workspaceId);
      this.parts.handoffs.forget(workspaceId);
    }
  }
}
