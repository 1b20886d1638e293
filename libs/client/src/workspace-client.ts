import { hostedZoneOf } from './errors.js';
import type { HandoffCache } from './handoff-cache.js';
import { requestJson, type FetchLike, type RequestOptions } from './http.js';
import type {
  CreateFragmentInput,
  Fragment,
  FragmentPage,
  FragmentType,
  Handoff,
  ListFragmentsOptions,
  SearchOptions,
  SearchResults,
  UpdateFragmentInput,
  Workspace,
} from './types.js';

interface Plane {
  baseUrl: string;
  token: string;
}

export interface ClientParts {
  fetch: FetchLike;
  cloudUrl: string;
  token: string;
  handoffs: HandoffCache;
}

/**
 * The data of one workspace, wherever it lives. The first call learns the workspace's
 * placement from the Cloud (metadata only); a Leaf-backed workspace's data calls then go to
 * its Leaf with a handoff token, so content, titles and queries are never sent to the Cloud.
 * Should the Cloud still answer HOSTED_ZONE_REQUIRED (the workspace was placed after it was
 * described), it refused before storing anything: the request goes to the Leaf, and every
 * later one goes there directly.
 */
export class WorkspaceClient {
  private placement?: Promise<Workspace>;
  private leafUrl?: string;

  constructor(
    private readonly parts: ClientParts,
    readonly workspaceId: string,
  ) {}

  /** The workspace's metadata from the Cloud (re-read: it becomes active after placement). */
  async describe(): Promise<Workspace> {
    const { workspace } = await requestJson<{ workspace: Workspace }>(
      this.parts.fetch,
      this.parts.cloudUrl,
      this.parts.token,
      `api/workspaces/${this.workspaceId}`,
    );
    if (workspace.hostedZoneId && workspace.endpointUrl) this.leafUrl = workspace.endpointUrl;
    return workspace;
  }

  readonly fragments = {
    create: async (input: CreateFragmentInput): Promise<Fragment> =>
      (
        await this.call<{ fragment: Fragment }>('api/memory-fragments', {
          method: 'POST',
          body: { ...input, workspaceId: this.workspaceId },
        })
      ).fragment,
    get: async (fragmentId: string): Promise<Fragment> =>
      (await this.call<{ fragment: Fragment }>(`api/memory-fragments/${fragmentId}`, {})).fragment,
    update: async (fragmentId: string, input: UpdateFragmentInput): Promise<Fragment> =>
      (await this.call<{ fragment: Fragment }>(`api/memory-fragments/${fragmentId}`, { method: 'PATCH', body: input }))
        .fragment,
    archive: async (fragmentId: string): Promise<Fragment> =>
      (await this.call<{ fragment: Fragment }>(`api/memory-fragments/${fragmentId}`, { method: 'DELETE' })).fragment,
    list: async (options: ListFragmentsOptions = {}): Promise<FragmentPage> =>
      this.call<FragmentPage>('api/memory-fragments', {
        query: {
          workspaceId: this.workspaceId,
          limit: options.limit,
          offset: options.offset,
          includeArchived: options.includeArchived,
          tags: options.tags?.join(','),
        },
      }),
    types: async (): Promise<FragmentType[]> =>
      (await this.call<{ items: FragmentType[] }>(`api/workspaces/${this.workspaceId}/fragment-types`, {})).items,
  };

  /** Hybrid search in this workspace (for a Leaf-backed one the query goes to the Leaf only). */
  async search(q: string, options: SearchOptions = {}): Promise<SearchResults> {
    return this.call<SearchResults>('api/search', {
      query: { workspaceId: this.workspaceId, q, mode: options.mode, limit: options.limit, offset: options.offset },
    });
  }

  /** A data-plane call on the plane that holds this workspace. */
  private async call<T>(path: string, options: RequestOptions): Promise<T> {
    await (this.placement ??= this.describe());
    if (this.leafUrl) return this.onLeaf<T>(path, options);
    try {
      return await requestJson<T>(this.parts.fetch, this.parts.cloudUrl, this.parts.token, path, options);
    } catch (err) {
      const zone = hostedZoneOf(err);
      if (!zone) throw err;
      this.leafUrl = zone.endpointUrl;
      return this.onLeaf<T>(path, options);
    }
  }

  private async onLeaf<T>(path: string, options: RequestOptions): Promise<T> {
    const plane = await this.leafPlane();
    try {
      return await requestJson<T>(this.parts.fetch, plane.baseUrl, plane.token, path, options);
    } catch (err) {
      // A token the Leaf no longer accepts (expired early, keys rotated): one fresh handoff, once.
      if ((err as { status?: number }).status !== 401) throw err;
      this.parts.handoffs.forget(this.workspaceId);
      const fresh = await this.leafPlane();
      return requestJson<T>(this.parts.fetch, fresh.baseUrl, fresh.token, path, options);
    }
  }

  private async leafPlane(): Promise<Plane> {
    let handoff = this.parts.handoffs.get(this.workspaceId);
    if (!handoff) {
      handoff = await requestJson<Handoff>(
        this.parts.fetch,
        this.parts.cloudUrl,
        this.parts.token,
        `api/workspaces/${this.workspaceId}/handoff`,
        { method: 'POST' },
      );
      this.parts.handoffs.set(handoff);
    }
    return { baseUrl: handoff.endpointUrl, token: handoff.token };
  }
}
