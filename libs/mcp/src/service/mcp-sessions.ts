import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';

export interface McpSession {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  /** The credential that opened the session: only it may use the session. */
  credentialId: string;
  lastActive: number;
}

/** Sessions idle this long are closed (clients then start a new one, as the spec allows). */
const IDLE_MS = 30 * 60_000;
const MAX_SESSIONS = 5_000;
const MAX_PER_CREDENTIAL = 50;

/**
 * The MCP sessions this gateway process holds (in memory: with several gateway replicas a
 * load balancer must route by the Mcp-Session-Id header, docs/mcp.md).
 */
@Injectable()
export class McpSessions implements OnModuleDestroy {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(@Inject(LOGGER) private readonly logger: Logger) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  /** The session, only for the credential that opened it (anything else reads as unknown). */
  get(sessionId: string, credentialId: string): McpSession | undefined {
    const session = this.sessions.get(sessionId);
    if (!session || session.credentialId !== credentialId) return undefined;
    session.lastActive = Date.now();
    return session;
  }

  /** Whether one more session may open for this credential. */
  hasRoom(credentialId: string): boolean {
    if (this.sessions.size >= MAX_SESSIONS) return false;
    let mine = 0;
    for (const s of this.sessions.values()) if (s.credentialId === credentialId) mine++;
    return mine < MAX_PER_CREDENTIAL;
  }

  add(sessionId: string, session: McpSession): void {
    this.sessions.set(sessionId, session);
  }

  remove(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  get size(): number {
    return this.sessions.size;
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_MS;
    for (const [id, session] of this.sessions) {
      if (session.lastActive < cutoff) {
        this.sessions.delete(id);
        void session.transport.close().catch(() => undefined);
        this.logger.debug({ sessionId: id }, 'idle MCP session closed');
      }
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.transport.close().catch(() => undefined)));
  }
}
