import { Module, type DynamicModule } from '@nestjs/common';
import { ERROR_HEADERS } from '@kw/platform-http';
import { McpController } from './mcp.controller.js';
import { McpErrorCors } from './mcp-error-cors.js';
import { ProtectedResourceController } from './protected-resource.controller.js';
import { McpSessions } from '../service/mcp-sessions.js';
import { CLOUD_TOOL_SET, LEAF_TOOL_SET, MCP_TOOL_SET, type McpToolSet } from '../service/mcp-tool-set.js';

/**
 * The MCP endpoint and its discovery document: an edge module of the gateway (`forCloud`) and
 * the Leaf (`forLeaf`), which differ in the tools they offer.
 */
@Module({})
export class McpHttpModule {
  static forCloud(): DynamicModule {
    return McpHttpModule.offering(CLOUD_TOOL_SET);
  }

  static forLeaf(): DynamicModule {
    return McpHttpModule.offering(LEAF_TOOL_SET);
  }

  private static offering(toolSet: McpToolSet): DynamicModule {
    return {
      module: McpHttpModule,
      // A Leaf accepts only the Cloud's handoff tokens: no OAuth discovery there (docs/mcp.md#leaf).
      controllers: toolSet.plane === 'cloud' ? [McpController, ProtectedResourceController] : [McpController],
      providers: [
        McpSessions,
        { provide: MCP_TOOL_SET, useValue: toolSet },
        // CORS for the edge's refusals of /api/mcp, before the endpoint ran.
        { provide: ERROR_HEADERS, useClass: McpErrorCors },
      ],
    };
  }
}
