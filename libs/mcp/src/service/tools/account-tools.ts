import { IdentityService, WorkspacesService } from '@kw/contracts';
import { callerOf, runTool } from '../tool-context.js';
import { READ_ONLY, type ToolGroup } from './tool-registry.js';

/** whoami and list_workspaces. */
export const accountTools: ToolGroup = (server, client) => {
  server.registerTool(
    'whoami',
    {
      title: 'Who am I',
      description: 'The signed-in user and what the current credential allows (scopes, workspace restriction).',
      inputSchema: {},
      annotations: READ_ONLY,
    },
    async (_args, extra) =>
      runTool(extra, async () => {
        const { auth } = callerOf(extra);
        const { user } = await client.call(IdentityService.method.getProfile, {});
        return {
          user: { id: user!.id, email: user!.email, displayName: user!.displayName },
          credential: {
            kind: auth.credentialKind,
            scopes: auth.scopes,
            workspaces: auth.allWorkspaces ? 'all' : auth.workspaceIds,
          },
        };
      }),
  );

  server.registerTool(
    'list_workspaces',
    {
      title: 'List workspaces',
      description:
        'Workspaces you can read: your memberships and subscribed public workspaces, with your relation. Use the ids with the other tools.',
      inputSchema: {},
      annotations: READ_ONLY,
    },
    async (_args, extra) =>
      runTool(extra, async () => {
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
      }),
  );
};
