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
  /** Safe HTML: the text escaped, the matches in `<mark></mark>`, no other markup. */
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

/** A move of a workspace between the Cloud and a hosted zone (docs/portable-workspaces.md#moving). */
export interface WorkspaceMove {
  id: string;
  workspaceId: string;
  /** null: the Cloud. */
  fromHostedZoneId: string | null;
  toHostedZoneId: string | null;
  status: 'preparing' | 'copying' | 'done' | 'aborted';
  leaveFilesBehind: boolean;
  sourceEndpointUrl: string | null;
  targetEndpointUrl: string | null;
  /** The copy that is not the workspace's any more has been purged. */
  leftoverRemoved: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

/** An export or import job (docs/portable-workspaces.md). */
export interface Transfer {
  id: string;
  workspaceId: string;
  kind: 'export' | 'import';
  status: 'uploading' | 'processing' | 'done' | 'failed';
  done: number;
  total: number;
  error: string | null;
  result: Record<string, unknown>;
  createdAt: string;
  finishedAt: string | null;
  archiveBytes: number;
}

export interface MoveWorkspaceOptions {
  /** Files of a Cloud workspace moving to a zone (which keeps none) are deleted instead of refusing the move. */
  leaveFilesBehind?: boolean;
  /** Told each step: preparing, exporting, importing (with the jobs' counts), completing, removing. */
  onProgress?: (progress: MoveProgress) => void;
  /** How often a job's status is asked (default 500 ms). */
  pollMs?: number;
  /** How long each step may take before the move is aborted (default 10 minutes). */
  stepTimeoutMs?: number;
}

export interface MoveProgress {
  moveId: string;
  phase: 'preparing' | 'exporting' | 'importing' | 'completing' | 'removing' | 'done';
  done?: number;
  total?: number;
}
