import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { FragmentsService } from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import type { ServiceClient } from '@kw/platform-transport';
import { callerOf } from './tool-context.js';

/** The URI scheme of fragments as MCP resources: kw://fragments/{fragmentId}. */
export const FRAGMENT_URI_TEMPLATE = 'kw://fragments/{fragmentId}';

/**
 * Fragments readable as resources (Markdown: the title as a heading, then the content),
 * under the same authorization as get_fragment. There is no listing of every resource: use
 * the tools to find fragments; each tool result names its `resourceUri`.
 */
export function registerFragmentResources(server: McpServer, client: ServiceClient): void {
  server.registerResource(
    'fragment',
    new ResourceTemplate(FRAGMENT_URI_TEMPLATE, { list: undefined }),
    {
      title: 'Memory fragment',
      description: 'A fragment of workspace knowledge, as Markdown',
      mimeType: 'text/markdown',
    },
    async (uri, variables, extra) => {
      const { auth, requestId } = callerOf(extra);
      const fragmentId = String(variables.fragmentId);
      // Errors here are protocol errors (resources/read has no isError result).
      const { fragment } = await requestContext.run({ requestId, auth }, () =>
        client.call(FragmentsService.method.getFragment, { fragmentId }),
      );
      const f = fragment!;
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'text/markdown',
            text: `# ${f.title}\n\n${f.content}`,
            _meta: { workspaceId: f.workspaceId, version: f.version, tags: f.tags, updatedAt: f.updatedAt },
          },
        ],
      };
    },
  );
}
