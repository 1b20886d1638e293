import { Module } from '@nestjs/common';
import { McpController } from './http/mcp.controller.js';
import { ProtectedResourceController } from './http/protected-resource.controller.js';
import { McpSessions } from './server/mcp-sessions.js';

/** The MCP endpoint and its discovery document: an edge module of the gateway and the Leaf. */
@Module({ controllers: [McpController, ProtectedResourceController], providers: [McpSessions] })
export class McpHttpModule {}
