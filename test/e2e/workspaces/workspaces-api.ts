import { authHeaders, type TestAuth } from '../../support/accounts.js';
import { assertNoContractInternals } from '../../support/http.js';

/** One HTTP answer: status, the raw body (to compare bytes) and the parsed JSON. */
export interface Answer {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

/** The byte-exact body of every hidden, missing or archived workspace. */
export const WORKSPACE_NOT_FOUND = '{"error":"Workspace not found","code":"NOT_FOUND"}';

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** A small JSON client of the workspaces routes for the suites of this folder. */
export function workspacesApi(base: string) {
  async function call(auth: TestAuth | undefined, method: string, path: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = auth ? authHeaders(auth) : {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assertNoContractInternals(text, `${method} ${path}`);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      throw new Error(`${method} ${path}: not JSON (${res.status}): ${text.slice(0, 200)}`);
    }
    return { status: res.status, text, body: parsed, headers: res.headers };
  }

  /** Like call, but fails with the body when the status is not the expected one. */
  async function ok(auth: TestAuth, method: string, path: string, body: unknown, expected: number): Promise<any> {
    const answer = await call(auth, method, path, body);
    if (answer.status !== expected)
      throw new Error(`${method} ${path}: expected ${expected}, got ${answer.status}: ${answer.text}`);
    return answer.body;
  }

  async function createWorkspace(auth: TestAuth, fields: Record<string, unknown> = {}): Promise<any> {
    const { workspace } = await ok(
      auth,
      'POST',
      '/api/workspaces',
      { name: `ws ${Math.random().toString(36).slice(2)}`, ...fields },
      201,
    );
    return workspace;
  }

  /**
   * Makes `member` a member with `role` the way users do it: the owner invites the member's
   * email, the member accepts (`owner`: invited as collaborator, then promoted).
   */
  async function addMember(
    ownerAuth: TestAuth,
    workspaceId: string,
    member: { auth: TestAuth; email: string; id: string },
    role: string,
  ): Promise<void> {
    const invited = role === 'owner' ? 'collaborator' : role;
    const { invitation } = await ok(
      ownerAuth,
      'POST',
      `/api/workspaces/${workspaceId}/members`,
      { email: member.email, role: invited },
      201,
    );
    await ok(member.auth, 'POST', `/api/invitations/${invitation.id}/accept`, undefined, 200);
    if (role === 'owner')
      await ok(ownerAuth, 'PATCH', `/api/workspaces/${workspaceId}/members/${member.id}`, { role: 'owner' }, 200);
  }

  return { call, ok, createWorkspace, addMember };
}
