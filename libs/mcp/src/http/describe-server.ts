import { ApiProperty } from '@nestjs/swagger';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { ServiceClient } from '@kw/platform-transport';
import { FRAGMENT_URI_TEMPLATE } from '../service/fragment-resources.js';
import { SERVER_NAME, toolNames } from '../service/create-mcp-server.js';

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

let cachedTools: string[] | undefined;

/** What GET /api/mcp with `Accept: application/json` answers. */
export function describeServer(base: string, version: string, client: ServiceClient): McpDescriptionDto {
  cachedTools ??= toolNames(client);
  return {
    name: SERVER_NAME,
    version,
    protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    latestProtocolVersion: LATEST_PROTOCOL_VERSION,
    transport: { type: 'streamable-http', endpoint: `${base}/api/mcp`, sessionHeader: 'Mcp-Session-Id' },
    authentication: {
      type: 'bearer',
      credentials: ['personal access token (kwp_...)', 'handoff token at a hosted zone Leaf'],
      resourceMetadata: `${base}/.well-known/oauth-protected-resource`,
    },
    tools: cachedTools,
    resources: { templates: [FRAGMENT_URI_TEMPLATE] },
  };
}
