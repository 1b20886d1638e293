import https from 'node:https';
import type { CheckedTarget } from './check-target.js';

export interface TargetConnectionsOptions {
  /**
   * Endpoints whose connections are kept at once. Beyond, the least recently used endpoint with
   * no request in flight is closed (one with requests in flight is never cut off; the delivery
   * worker's own cap of sends in flight bounds how many of those there can be).
   */
  maxTargets?: number;
  /** Open connections per endpoint (deliveries to it beyond wait for one). */
  socketsPerTarget?: number;
  /**
   * How long an idle connection is kept. Below the 5 s keep-alive timeout of Node, Apache and
   * many proxies, so the receiver rarely closes a connection just as a delivery reuses it.
   */
  idleMs?: number;
}

// 16 sockets: the delivery worker's places per endpoint, so none of its deliveries waits for a
// socket. (sendToTarget's deadline starts when a request has its socket anyway.)
const DEFAULTS: Required<TargetConnectionsOptions> = { maxTargets: 256, socketsPerTarget: 16, idleMs: 4_000 };

/**
 * Keep-alive connections to webhook receivers, so a busy endpoint does not pay a TCP and TLS
 * handshake per delivery.
 *
 * One pool per endpoint, never per host: endpoints of different workspaces often share a
 * receiver host (a multi-tenant receiver service, a company's webhook gateway), and a pool per
 * host:port would let one endpoint that hangs take every connection to that host, so the other
 * endpoints' deliveries would queue behind it (and time out). With a pool per endpoint, an
 * endpoint holds at most its own `socketsPerTarget` connections and nobody else's requests wait
 * for them. The price is connections that could have been shared: endpoints on one host each
 * open their own (a handshake each). That is bounded by the sends in flight (the worker's cap)
 * plus the idle ones, which close after `idleMs`; a pool left with no connection is dropped.
 *
 * A connection is reused only by a delivery whose own check approved the same host name, port
 * and addresses: a pool is keyed by the endpoint and the check's result, so a name that now
 * resolves elsewhere (DNS rebinding) gets a connection of its own to the new, checked,
 * addresses and never an old socket.
 */
export class TargetConnections {
  private readonly options: Required<TargetConnectionsOptions>;
  // Insertion order is recency order: a lookup moves its entry to the end.
  private readonly agents = new Map<string, https.Agent>();

  constructor(options: TargetConnectionsOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** The agent holding the connections of one endpoint (its id) to this checked target. */
  agentFor(endpointId: string, target: CheckedTarget): https.Agent {
    const key = `${endpointId}|${keyOf(target)}`;
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key);
    } else {
      this.dropUnused();
      agent = new https.Agent({
        keepAlive: true,
        maxSockets: this.options.socketsPerTarget,
        maxFreeSockets: this.options.socketsPerTarget,
        // Applies to idle sockets in the pool (the exchange has its own deadline in sendToTarget).
        timeout: this.options.idleMs,
        scheduling: 'lifo', // the most recently used socket is the least likely to be closed by the receiver
      });
    }
    this.agents.set(key, agent);
    return agent;
  }

  /** Endpoints with an agent (tests and metrics). */
  get size(): number {
    return this.agents.size;
  }

  /** Closes every connection (shutdown; Nest calls it on a provider that has it). */
  onModuleDestroy(): void {
    this.close();
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /**
   * Before a new agent is added: drops the agents left without any connection (their idle ones
   * timed out), then, while the limit is reached, closes the least recently used agent that has
   * nothing in flight (its idle connections only).
   */
  private dropUnused(): void {
    for (const [key, agent] of this.agents) if (isEmpty(agent)) this.agents.delete(key);
    for (const [key, agent] of this.agents) {
      if (this.agents.size < this.options.maxTargets) break;
      if (inUse(agent)) continue;
      this.agents.delete(key);
      agent.destroy();
    }
  }
}

function count(sockets: NodeJS.ReadOnlyDict<unknown[]>): number {
  let n = 0;
  for (const list of Object.values(sockets)) n += list?.length ?? 0;
  return n;
}

/** Requests in flight or waiting for a socket. */
function inUse(agent: https.Agent): boolean {
  return count(agent.sockets) + count(agent.requests) > 0;
}

function isEmpty(agent: https.Agent): boolean {
  return !inUse(agent) && count(agent.freeSockets) === 0;
}

function keyOf(target: CheckedTarget): string {
  const addresses = target.addresses.map((a) => `${a.family}/${a.address}`).sort();
  return `${target.hostname}|${target.port}|${addresses.join(',')}`;
}
