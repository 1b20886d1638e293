import { HandoffCache } from './handoff-cache.js';
import type { FetchLike } from './http.js';
import { requestJson } from './http.js';
import type { Workspace } from './types.js';
import { WorkspaceClient, type ClientParts } from './workspace-client.js';

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
}
