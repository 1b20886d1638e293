import type { Message, Reply } from './transport.js';

/** One receiver on the bus; `reply` is present when the sender waits for an answer. */
export interface BusReceiver {
  queue?: string;
  deliver(message: Message, reply?: (answer: Reply) => void): void;
}

/**
 * The in-memory stand-in for the NATS server, shared by every InProcessTransport of one
 * process (the embedded mode). Like NATS it gives each message to every receiver without a
 * queue group and to one member of each queue group, taken in turn; subjects are exact.
 */
export class InProcessBus {
  private readonly receivers = new Map<string, BusReceiver[]>();
  private readonly turns = new Map<string, number>();

  add(subject: string, receiver: BusReceiver): () => void {
    this.receivers.set(subject, [...(this.receivers.get(subject) ?? []), receiver]);
    return () => {
      const rest = (this.receivers.get(subject) ?? []).filter((r) => r !== receiver);
      if (rest.length > 0) this.receivers.set(subject, rest);
      else this.receivers.delete(subject);
    };
  }

  /** Delivers asynchronously, as a network would; returns how many receivers were chosen. */
  dispatch(subject: string, message: Message, reply?: (answer: Reply) => void): number {
    const chosen = this.choose(subject);
    for (const receiver of chosen) {
      // Each receiver gets its own copy: no one can mutate bytes another side still holds.
      const copy: Message = { data: message.data.slice(), headers: { ...message.headers } };
      setImmediate(() => receiver.deliver(copy, reply));
    }
    return chosen.length;
  }

  private choose(subject: string): BusReceiver[] {
    const all = this.receivers.get(subject) ?? [];
    const groups = new Map<string, BusReceiver[]>();
    const chosen: BusReceiver[] = [];
    for (const r of all) {
      if (r.queue === undefined) chosen.push(r);
      else groups.set(r.queue, [...(groups.get(r.queue) ?? []), r]);
    }
    for (const [queue, members] of groups) {
      const key = `${subject}\u0000${queue}`;
      const turn = this.turns.get(key) ?? 0;
      this.turns.set(key, turn + 1);
      chosen.push(members[turn % members.length]);
    }
    return chosen;
  }
}
