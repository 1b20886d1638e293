import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '@kw/platform-observability';
import { LOGGER } from '@kw/platform-runtime';

export interface McpSession {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  /** Who may use the session (sessionOwner): the credential that opened it, or at a Leaf its user and workspace. */
  owner: string;
  /** Whose sessions it counts among (sessionHolder): that credential, or at a Leaf that user. */
  holder: string;
  lastActive: number;
}

/** The caller's credential as a session sees it (AuthContext). */
export interface SessionCaller {
  userId: string;
  credentialId: string;
  credentialKind: string;
  workspaceIds: readonly string[];
}

/** The credential kind of a Leaf's handoff tokens (libs/leaf HANDOFF_CREDENTIAL). */
const HANDOFF_CREDENTIAL = 'handoff';

/**
 * Who may use a session. A credential on the Cloud; at a Leaf each handoff token is its own
 * credential (its `jti`) and lives minutes, so a session belongs to the token's user and
 * workspace: a renewed handoff token continues it (each message still runs with the token it
 * carries). docs/mcp.md#leaf.
 */
export function sessionOwner(caller: SessionCaller): string {
  if (caller.credentialKind !== HANDOFF_CREDENTIAL) return `credential ${caller.credentialId}`;
  return `handoff ${caller.userId} ${[...caller.workspaceIds].sort().join(',')}`;
}

/** Whose cap a session counts against: the credential, or at a Leaf the user (not each token). */
export function sessionHolder(caller: SessionCaller): string {
  return caller.credentialKind === HANDOFF_CREDENTIAL ? `user ${caller.userId}` : `credential ${caller.credentialId}`;
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

  /** The session, only for its owner (sessionOwner; anything else reads as unknown). */
  get(sessionId: string, owner: string): McpSession | undefined {
    const session = this.sessions.get(sessionId);
    if (!session || session.owner !== owner) return undefined;
    session.lastActive = Date.now();
    return session;
  }

  /** Whether one more session may open for this holder (sessionHolder: a credential, or a Leaf's user). */
  hasRoom(holder: string): boolean {
    if (this.sessions.size >= MAX_SESSIONS) return false;
    let mine = 0;
    for (const s of this.sessions.values()) if (s.holder === holder) mine++;
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
