import https from 'node:https';
import type { CheckedTarget } from './check-target.js';

export interface TargetConnectionsOptions {
  /** Endpoints whose connections are kept at once; the least recently used one is closed beyond. */
  maxTargets?: number;
  /** Open connections per endpoint (deliveries to it beyond wait for one). */
  socketsPerTarget?: number;
  /**
   * How long an idle connection is kept. Below the 5 s keep-alive timeout of Node, Apache and
   * many proxies, so the receiver rarely closes a connection just as a delivery reuses it.
   */
  idleMs?: number;
}

// 16 sockets: the delivery worker's batch, so no delivery of a batch waits for a socket (its
// deadline runs from the start, and a slow endpoint would time the waiting ones out unsent).
const DEFAULTS: Required<TargetConnectionsOptions> = { maxTargets: 256, socketsPerTarget: 16, idleMs: 4_000 };

/**
 * Keep-alive connections to webhook receivers, so a busy endpoint does not pay a TCP and TLS
 * handshake per delivery. A connection is reused only by a delivery whose own check approved
 * the same host name, port and addresses: the pool is keyed by the check's result, so a name
 * that now resolves elsewhere (DNS rebinding) gets a connection of its own to the new,
 * checked, addresses and never an old socket.
 */
export class TargetConnections {
  private readonly options: Required<TargetConnectionsOptions>;
  // Insertion order is recency order: a lookup moves its entry to the end.
  private readonly agents = new Map<string, https.Agent>();

  constructor(options: TargetConnectionsOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** The agent holding connections to this checked target. */
  agentFor(target: CheckedTarget): https.Agent {
    const key = keyOf(target);
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key);
    } else {
      agent = new https.Agent({
        keepAlive: true,
        maxSockets: this.options.socketsPerTarget,
        maxFreeSockets: this.options.socketsPerTarget,
        // Applies to idle sockets in the pool (the exchange has its own deadline in sendToTarget).
        timeout: this.options.idleMs,
        scheduling: 'lifo', // the most recently used socket is the least likely to be closed by the receiver
      });
      if (this.agents.size >= this.options.maxTargets) {
        const [oldestKey, oldest] = this.agents.entries().next().value!;
        this.agents.delete(oldestKey);
        oldest.destroy();
      }
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
}

function keyOf(target: CheckedTarget): string {
  const addresses = target.addresses.map((a) => `${a.family}/${a.address}`).sort();
  return `${target.hostname}|${target.port}|${addresses.join(',')}`;
}
