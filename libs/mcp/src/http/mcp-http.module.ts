import { Module } from '@nestjs/common';
import { McpController } from './mcp.controller.js';
import { ProtectedResourceController } from './protected-resource.controller.js';
import { McpSessions } from '../service/mcp-sessions.js';

/** The MCP endpoint and its discovery document: an edge module of the gateway and the Leaf. */
@Module({ controllers: [McpController, ProtectedResourceController], providers: [McpSessions] })
export class McpHttpModule {}
