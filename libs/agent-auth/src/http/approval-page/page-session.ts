import type { FastifyRequest } from 'fastify';
import { WorkspacesService } from '@kw/contracts';
import { ACTION_DEFINITIONS } from '@kw/platform-access-policy';
import { GatewayAuthenticator, parseCookies, SESSION_COOKIE, type AuthenticatedSession } from '@kw/platform-http';
import type { ServiceClient } from '@kw/platform-transport';

/** The signed-in person, if the browser sends a live session; the pages work signed out too. */
export async function pageSession(
  authenticator: GatewayAuthenticator,
  request: FastifyRequest,
): Promise<AuthenticatedSession | undefined> {
  const token = parseCookies(request.headers.cookie)[SESSION_COOKIE];
  if (!token) return undefined;
  return authenticator.authenticateSession(token, request.ip).catch(() => undefined);
}

/** What a review shows besides the request: each scope's description, and the person's workspaces. */
export async function reviewExtras(client: ServiceClient, scopes: string[]) {
  const { workspaces } = await client.call(WorkspacesService.method.listMyWorkspaces, {});
  return {
    scopes: scopes.map((s) => ({
      name: s,
      description: ACTION_DEFINITIONS[s as keyof typeof ACTION_DEFINITIONS]?.description ?? s,
    })),
    workspaces: workspaces.map((w) => ({ id: w.id, name: w.name })),
  };
}
