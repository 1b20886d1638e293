import { IdentityService, WorkspacesService } from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { READ_ONLY, defineAgentTool, type AgentTool } from '../agent-tool.js';

/** whoami and list_workspaces. */
export const accountTools: AgentTool[] = [
  defineAgentTool({
    id: 'whoami',
    title: 'Who am I',
    description: 'The signed-in user and what the current credential allows (scopes, workspace restriction).',
    inputSchema: {},
    annotations: READ_ONLY,
    async run(_args, client) {
      const auth = requestContext.current()?.auth;
      if (!auth)
        throw new AppError({ status: 401, code: ErrorCode.UNAUTHENTICATED, message: 'Authentication required' });
      const { user } = await client.call(IdentityService.method.getProfile, {});
      return {
        user: { id: user!.id, email: user!.email, displayName: user!.displayName },
        credential: {
          kind: auth.credentialKind,
          scopes: auth.scopes,
          workspaces: auth.allWorkspaces ? 'all' : auth.workspaceIds,
        },
      };
    },
  }),

  defineAgentTool({
    id: 'list_workspaces',
    title: 'List workspaces',
    description:
      'Workspaces you can read: your memberships and subscribed public workspaces, with your relation. Use the ids with the other tools.',
    inputSchema: {},
    annotations: READ_ONLY,
    async run(_args, client) {
      const res = await client.call(WorkspacesService.method.listAccessibleWorkspaces, {});
      const workspaces = res.workspaces.map((w) => ({
        id: w.id,
        name: w.name,
        description: w.description,
        visibility: w.visibility,
        relation: w.relation,
        hostedZoneId: w.hostedZoneId || null,
        status: w.status,
      }));
      return { workspaces, count: workspaces.length };
    },
  }),
];
