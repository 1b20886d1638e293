import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { FragmentsService } from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { ServiceClient } from '@kw/platform-transport';
import { callerOf } from './tool-context.js';

/** MCP's code for a resource that does not exist (the specification's "Resource not found"). */
export const RESOURCE_NOT_FOUND = -32002;

/** An unknown fragment and one the caller may not see answer alike, as over REST. */
const resourceNotFound = (uri: string) => new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });

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
      const { fragment } = await requestContext
        .run({ requestId, auth }, () => client.call(FragmentsService.method.getFragment, { fragmentId }))
        .catch((err: unknown) => {
          throw AppError.isAppError(err) && err.code === ErrorCode.NOT_FOUND ? resourceNotFound(uri.href) : err;
        });
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
