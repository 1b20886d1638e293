import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ReadResourceRequestSchema, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { FragmentsService } from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import type { ServiceClient } from '@kw/platform-transport';
import { callerOf } from './tool-context.js';

/** MCP's code for a resource that does not exist (the specification's "Resource not found"). */
export const RESOURCE_NOT_FOUND = -32002;
/**
 * The platform's code for a resource the caller may not read although it may see it (a token
 * without `fragments:read`): MCP specifies none, so one of JSON-RPC's implementation-defined
 * server errors, beside MCP's -32002. Never -32603: a refusal is no server fault.
 */
export const RESOURCE_FORBIDDEN = -32003;

/** An unknown fragment and one the caller may not see answer alike, as over REST. */
const resourceNotFound = (uri: string) => new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });

/** The URI scheme of fragments as MCP resources: kw://fragments/{fragmentId}. */
export const FRAGMENT_URI_TEMPLATE = 'kw://fragments/{fragmentId}';
const FRAGMENT_URI = /^kw:\/\/fragments\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * Fragments readable as resources (Markdown: the title as a heading, then the content),
 * under the same authorization as get_fragment. There is no listing of every resource: use
 * the tools to find fragments; each tool result names its `resourceUri`.
 *
 * The template is published through the SDK (resources/templates/list); resources/read is
 * answered here rather than by the SDK's template matching, which reports a URI no template
 * matches (`kw://fragments/`, `kw://fragments/{id}/x`) as -32602 without `data`: every URI
 * that names no readable fragment is -32002 with `data: {uri}`, as docs/mcp.md says.
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
    (uri, _variables, extra) => readFragment(client, uri.href, extra),
  );
  server.server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    readFragment(client, request.params.uri, extra),
  );
}

async function readFragment(
  client: ServiceClient,
  uri: string,
  extra: Parameters<typeof callerOf>[0],
): Promise<ReadResourceResult> {
  const { auth, requestId } = callerOf(extra);
  // Anything but kw://fragments/{uuid} names no fragment: not found, like an unknown id.
  const fragmentId = FRAGMENT_URI.exec(uri)?.[1];
  if (!fragmentId) throw resourceNotFound(uri);
  // Errors here are protocol errors (resources/read has no isError result).
  const { fragment } = await requestContext
    .run({ requestId, auth }, () => client.call(FragmentsService.method.getFragment, { fragmentId }))
    .catch((err: unknown) => {
      if (!AppError.isAppError(err)) throw err;
      if (err.code === ErrorCode.NOT_FOUND) throw resourceNotFound(uri);
      if (err.code === ErrorCode.FORBIDDEN)
        throw new McpError(RESOURCE_FORBIDDEN, `Forbidden: ${err.message}`, {
          uri,
          code: err.code,
          error: err.message,
        });
      throw err;
    });
  const f = fragment!;
  return {
    contents: [
      {
        uri,
        mimeType: 'text/markdown',
        text: `# ${f.title}\n\n${f.content}`,
        _meta: { workspaceId: f.workspaceId, version: f.version, tags: f.tags, updatedAt: f.updatedAt },
      },
    ],
  };
}
