import { ApiProperty } from '@nestjs/swagger';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { FRAGMENT_URI_TEMPLATE } from '../service/fragment-resources.js';
import { SERVER_NAME } from '../service/create-mcp-server.js';
import type { McpToolSet } from '../service/mcp-tool-set.js';

export class McpDescriptionDto {
  @ApiProperty({ example: SERVER_NAME }) name!: string;
  @ApiProperty() version!: string;
  @ApiProperty({ type: [String] }) protocolVersions!: string[];
  @ApiProperty() latestProtocolVersion!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) transport!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) authentication!: Record<string, unknown>;
  @ApiProperty({ type: [String] }) tools!: string[];
  @ApiProperty({ type: 'object', additionalProperties: true }) resources!: Record<string, unknown>;
}

/** What GET /api/mcp with `Accept: application/json` answers: the tools of this endpoint (the Cloud's or a Leaf's). */
export function describeServer(
  base: string,
  version: string,
  toolSet: McpToolSet,
  handoffUrl: string,
): McpDescriptionDto {
  const authentication =
    toolSet.plane === 'leaf'
      ? {
          type: 'bearer',
          credentials: ['handoff token, issued by the Cloud'],
          handoff: `POST ${handoffUrl}`,
        }
      : {
          type: 'bearer',
          credentials: [
            'personal access token (kwp_...)',
            'agent or OAuth access token (kwa_...): agent authentication, or an OAuth client for this resource',
            'handoff token at a hosted zone Leaf',
          ],
          resourceMetadata: `${base}/.well-known/oauth-protected-resource`,
        };
  return {
    name: SERVER_NAME,
    version,
    protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    latestProtocolVersion: LATEST_PROTOCOL_VERSION,
    transport: { type: 'streamable-http', endpoint: `${base}/api/mcp`, sessionHeader: 'Mcp-Session-Id' },
    authentication,
    tools: toolSet.tools.map((tool) => tool.id),
    resources: { templates: [FRAGMENT_URI_TEMPLATE] },
  };
}
