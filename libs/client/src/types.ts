/** The shapes of the API this client uses (docs/fragments.md, docs/search.md, docs/hosted-zones.md). */
export interface Workspace {
  id: string;
  name: string;
  description: string;
  visibility: 'private' | 'public';
  status: 'active' | 'processing';
  hostedZoneId: string | null;
  endpointUrl?: string | null;
  relation?: string;
}

export interface Fragment {
  id: string;
  workspaceId: string;
  fragmentTypeId: string;
  title: string;
  content: string;
  summary: string | null;
  tags: string[];
  key: string | null;
  status: 'processing' | 'published';
  createdVia: string;
  version: number;
  enrichment: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
}

export interface FragmentType {
  id: string;
  key: string;
  name: string;
}

export interface CreateFragmentInput {
  fragmentTypeId: string;
  title: string;
  content: string;
  summary?: string;
  tags?: string[];
  key?: string;
}

export interface UpdateFragmentInput {
  title?: string;
  content?: string;
  summary?: string;
  tags?: string[];
  version?: number;
}

export interface ListFragmentsOptions {
  limit?: number;
  offset?: number;
  includeArchived?: boolean;
  tags?: string[];
}

export interface FragmentPage {
  items: Fragment[];
  count: number;
  totalCount: number;
  limit: number;
  offset: number;
}

export interface SearchOptions {
  mode?: 'hybrid' | 'keyword' | 'semantic';
  limit?: number;
  offset?: number;
}

export interface SearchHit {
  fragmentId: string;
  workspaceId: string;
  title: string;
  type: string;
  tags: string[];
  snippet: string;
  score: number;
  matchedBy: string[];
}

export interface SearchResults {
  results: SearchHit[];
  total: number;
  limit: number;
  offset: number;
  mode: string;
}

/** A readable workspace the Cloud's global search did not search: its data lives in a hosted zone. */
export interface SkippedWorkspace {
  workspaceId: string;
  name: string;
  hostedZoneId: string;
  endpointUrl: string;
  reason: 'hosted_zone';
}

export interface GlobalSearchResults extends SearchResults {
  workspaceCount: number;
  skippedWorkspaces: SkippedWorkspace[];
}

/** What a federated search asked: the Cloud, and each hosted workspace's Leaf (an error per Leaf that failed). */
export interface FederatedSearchResults {
  results: SearchHit[];
  mode: string;
  cloud: { workspaceCount: number; total: number };
  leaves: Array<{ workspaceId: string; endpointUrl: string; total: number; error?: string }>;
}

export interface Handoff {
  token: string;
  expiresAt: string;
  expiresIn: number;
  hostedZoneId: string;
  endpointUrl: string;
  workspaceId: string;
  actions: string[];
}
