import { randomUUID } from 'node:crypto';
import { Controller, Delete, Get, HttpCode, Inject, Options, Post, Req, Res, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  ApiBearerAuth,
  ApiExcludeEndpoint,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '@kw/platform-config';
import { requestContext } from '@kw/platform-context';
import { AppError } from '@kw/platform-errors';
import {
  assertAudience,
  admittedAuthentication,
  attachCaller,
  authenticateBearer,
  findEdgeAdmission,
  Public,
  publicBase,
  unauthenticated,
  type AuthenticatedCaller,
  type EdgeAdmission,
} from '@kw/platform-http';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, buildInfo, LOGGER } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { createMcpServer } from '../service/create-mcp-server.js';
import { MCP_TOOL_SET, type McpToolSet } from '../service/mcp-tool-set.js';
import { McpSessions, sessionHolder, sessionOwner } from '../service/mcp-sessions.js';
import type { McpAuthExtra } from '../service/tool-context.js';
import { describeServer, McpDescriptionDto } from './describe-server.js';
import { invalidMessage, invalidParams, type RpcRefusal } from './jsonrpc-checks.js';
import { MCP_DEFAULT_SCOPES } from './oauth-scopes.js';
import {
  allowedOrigins,
  checkOrigin,
  CORS_ALLOWED_HEADERS,
  CORS_MAX_AGE_SECONDS,
  corsHeaders,
} from './origin-policy.js';

const SESSION_HEADER = 'mcp-session-id';

/** JSON-RPC errors for session problems, as the Streamable HTTP transport specifies them. */
function rpcError(reply: FastifyReply, status: number, code: number, message: string): void {
  void reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** A JSON-RPC refusal the endpoint answers itself (jsonrpc-checks.ts). */
function refuse(reply: FastifyReply, refusal: RpcRefusal): void {
  void reply.code(refusal.status).type('application/json').send(refusal.body);
}

/**
 * The MCP endpoint (Streamable HTTP, official SDK server): POST carries JSON-RPC, GET opens the
 * server-to-client stream (or, asked for JSON, describes the server), DELETE ends a session.
 * Bearer credentials only (tokens, or handoff tokens at a Leaf); each message runs as that
 * caller, so tools are authorized exactly like the REST routes.
 */
@ApiTags('MCP')
@Controller('api/mcp')
export class McpController implements OnModuleInit {
  private readonly origins: Set<string>;
  private readonly version = buildInfo().version;
  private admission?: EdgeAdmission;

  constructor(
    private readonly client: ServiceClient,
    private readonly sessions: McpSessions,
    private readonly moduleRef: ModuleRef,
    @Inject(MCP_TOOL_SET) private readonly toolSet: McpToolSet,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.origins = allowedOrigins(config);
  }

  onModuleInit(): void {
    this.admission = findEdgeAdmission(this.moduleRef);
  }

  @Post()
  // Public to the gateway's guard only: admit() authenticates (its 401 names the resource metadata).
  @Public()
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary: 'MCP JSON-RPC (Streamable HTTP)',
    description:
      'JSON-RPC 2.0 messages of the Model Context Protocol. Bearer token required (401 with ' +
      '`WWW-Authenticate: Bearer resource_metadata=..., scope=...`: the default scopes to ask for). Start with `initialize` (answers ' +
      '`Mcp-Session-Id`), then send that header. A tool failure is HTTP 200 with a result `isError: true`. ' +
      'docs/mcp.md.',
  })
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.cors(request, reply);
    const caller = await this.admit(request, reply);
    const notMessage = invalidMessage(request.body);
    if (notMessage) return refuse(reply, notMessage);
    const sessionId = header(request, SESSION_HEADER);
    if (sessionId) {
      const session = this.sessions.get(sessionId, sessionOwner(caller.auth));
      if (!session) return rpcError(reply, 404, -32001, 'Session not found: start a new session with initialize');
      const badParams = invalidParams(request.body);
      if (badParams) return refuse(reply, badParams);
      return this.handle(session.transport, request, reply, caller);
    }
    // An initialize whose params are wrong is told so, not to "send initialize first".
    const badInitialize = (request.body as { method?: unknown }).method === 'initialize' && invalidParams(request.body);
    if (badInitialize) return refuse(reply, badInitialize);
    if (!isInitializeRequest(request.body))
      return rpcError(reply, 400, -32000, 'Bad Request: no valid Mcp-Session-Id; send initialize first');
    const owner = sessionOwner(caller.auth);
    const holder = sessionHolder(caller.auth);
    if (!this.sessions.hasRoom(holder))
      return rpcError(reply, 503, -32000, 'Too many open MCP sessions; close some (DELETE /api/mcp) and retry');

    const server = createMcpServer(this.client, this.version, this.toolSet);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => this.sessions.add(id, { transport, server, owner, holder, lastActive: Date.now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.remove(transport.sessionId);
    };
    await server.connect(transport);
    await this.handle(transport, request, reply, caller);
  }

  @Get()
  @Public()
  @ApiOperation({
    summary: 'Describe the MCP server, or open its event stream',
    description:
      '`Accept: application/json`: name, version, protocol versions, authentication and tool names (no ' +
      'credential needed). `Accept: text/event-stream` with a bearer token and `Mcp-Session-Id`: the ' +
      'server-to-client stream of the session.',
  })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({ type: McpDescriptionDto })
  async get(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.cors(request, reply);
    const accept = header(request, 'accept') ?? '';
    if (!accept.includes('text/event-stream')) {
      const base = publicBase(this.config, request);
      void reply.send(describeServer(base, this.version, this.toolSet, handoffUrl(this.config)));
      return;
    }
    const caller = await this.admit(request, reply);
    const sessionId = header(request, SESSION_HEADER);
    if (!sessionId) return rpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const session = this.sessions.get(sessionId, sessionOwner(caller.auth));
    if (!session) return rpcError(reply, 404, -32001, 'Session not found: start a new session with initialize');
    await this.handle(session.transport, request, reply, caller);
  }

  @Delete()
  @Public()
  @ApiExcludeEndpoint()
  async delete(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.cors(request, reply);
    const caller = await this.admit(request, reply);
    const sessionId = header(request, SESSION_HEADER);
    if (!sessionId) return rpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const session = this.sessions.get(sessionId, sessionOwner(caller.auth));
    if (!session) return rpcError(reply, 404, -32001, 'Session not found');
    await this.handle(session.transport, request, reply, caller);
  }

  @Options()
  @Public()
  @HttpCode(204)
  @ApiOperation({
    summary: 'CORS preflight of the MCP endpoint',
    description:
      "Answered for the deployment's own origin and those of MCP_ALLOWED_ORIGINS (the allowed methods and headers); " +
      '403 for any other origin. docs/mcp.md.',
  })
  @ApiNoContentResponse({ description: 'The origin may call the endpoint' })
  preflight(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): void {
    if (!this.cors(request, reply)) return;
    void reply.headers({
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': CORS_ALLOWED_HEADERS,
      'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
    });
  }

  /**
   * The Origin check (403 for a foreign one, without CORS headers), then CORS for an admitted
   * browser origin: set on the raw response, so the SDK transport's own answers (the reply is
   * hijacked) and the errors raised afterwards (401, session errors) carry them too; errors
   * raised before it runs get them from McpErrorCors. Answers whether the request came from a
   * browser page.
   */
  private cors(request: FastifyRequest, reply: FastifyReply): boolean {
    reply.raw.setHeader('vary', 'Origin');
    const origin = checkOrigin(header(request, 'origin'), this.origins, publicBase(this.config, request));
    if (origin === undefined) return false;
    for (const [name, value] of Object.entries(corsHeaders(origin))) reply.raw.setHeader(name, value);
    return true;
  }

  /**
   * The bearer credential (the Origin was checked first, by cors()). The Cloud's refusal carries the protected-resource
   * metadata URL (OAuth discovery) and the default scopes to ask for; a Leaf's says where
   * handoff tokens come from instead.
   */
  private async admit(request: FastifyRequest, reply: FastifyReply): Promise<AuthenticatedCaller> {
    const base = publicBase(this.config, request);
    const leaf = this.toolSet.plane === 'leaf';
    const challenge = leaf
      ? 'Bearer realm="kw"'
      : `Bearer realm="kw", resource_metadata="${base}/.well-known/oauth-protected-resource", scope="${MCP_DEFAULT_SCOPES.join(' ')}"`;
    let caller: AuthenticatedCaller;
    try {
      const authorization = request.headers.authorization;
      // Without a credential the request was already counted as anonymous by the AuthGuard (a public route).
      if (authorization === undefined)
        throw unauthenticated(
          leaf
            ? `A handoff token is required for this Leaf's MCP endpoint: ask the Cloud for one (POST ${handoffUrl(this.config)}) and send it as Authorization: Bearer <token>`
            : 'A bearer token is required for the MCP endpoint',
        );
      caller = await admittedAuthentication(this.admission, request, reply, authorization, () =>
        authenticateBearer({ headers: { authorization }, ip: request.ip }),
      );
    } catch (err) {
      // Only a refused credential asks the client to authenticate; a 503 (identity service
      // down) must not send it into a new sign-in.
      if (AppError.isAppError(err) && err.status === 401) void reply.header('www-authenticate', challenge);
      throw err;
    }
    // A token bound to another resource (RFC 8707 audience) is refused here, as an invalid token
    // (RFC 6750 section 3.1, like every other route): the client needs a token for this resource.
    try {
      assertAudience(caller.auth.audience, request.url);
    } catch (err) {
      void reply.header('www-authenticate', `${challenge}, error="invalid_token"`);
      throw err;
    }
    attachCaller(request, caller);
    return caller;
  }

  /** Hands the raw request to the SDK transport, with the caller as its authInfo. */
  private async handle(
    transport: StreamableHTTPServerTransport,
    request: FastifyRequest,
    reply: FastifyReply,
    caller: AuthenticatedCaller,
  ): Promise<void> {
    const extra: McpAuthExtra = { auth: caller.auth, requestId: requestContext.requestId() ?? randomUUID() };
    const authInfo: AuthInfo = {
      token: 'redacted',
      clientId: caller.auth.credentialId,
      scopes: caller.auth.scopes,
      extra,
    };
    (request.raw as typeof request.raw & { auth?: AuthInfo }).auth = authInfo;
    reply.hijack();
    try {
      await transport.handleRequest(request.raw as never, reply.raw, request.body);
    } catch (err) {
      this.logger.error({ err }, 'MCP request failed');
      if (!reply.raw.headersSent)
        reply.raw
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
    }
  }
}

/** Where a Leaf's callers get handoff tokens: the Cloud's handoff route (CLOUD_URL, which a Leaf has). */
export function handoffUrl(config: AppConfig): string {
  return `${(config.CLOUD_URL ?? '').replace(/\/+$/, '')}/api/workspaces/{id}/handoff`;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
