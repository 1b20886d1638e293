import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import { snakeCase } from './subject.js';
import type { Subscription, Transport } from './transport.js';

/**
 * Broadcasts: a contract message that every subscribed process receives (no queue group),
 * fire-and-forget over core NATS (at most once). For signals whose loss is tolerable because
 * the receiver also bounds its state by time, e.g. cache invalidations; durable domain events
 * go through the outbox and JetStream instead.
 *
 * The subject comes from the message type, never written by hand:
 * `kw.identity.v1.CredentialsChanged` -> `identity.v1.broadcast.credentials_changed`.
 */
export function broadcastSubjectOf(message: DescMessage): string {
  const [root, ...rest] = message.file.proto.package.split('.');
  if (root !== 'kw' || rest.length < 2)
    throw new Error(`Broadcast ${message.typeName} must live in a versioned kw.<domain>.<version> package`);
  return [...rest, 'broadcast', snakeCase(message.name)].join('.');
}

export function broadcast<M extends DescMessage>(transport: Transport, message: M, value: MessageInitShape<M>): void {
  transport.publish(broadcastSubjectOf(message), toBinary(message, create(message, value)));
}

/**
 * Every broadcast of this type reaches `onMessage`. `onMissed` is called whenever broadcasts
 * may have been lost (the link to NATS dropped): a cache kept by them forgets everything then,
 * instead of serving, until its TTL, what a broadcast sent meanwhile would have dropped.
 */
export function onBroadcast<M extends DescMessage>(
  transport: Transport,
  message: M,
  onMessage: (value: MessageShape<M>) => void,
  onMissed?: () => void,
): Subscription {
  const subscription = transport.subscribe(broadcastSubjectOf(message), (msg) =>
    onMessage(fromBinary(message, msg.data)),
  );
  const unlisten = onMissed ? transport.onLinkLost?.(onMissed) : undefined;
  return {
    unsubscribe: async () => {
      unlisten?.();
      await subscription.unsubscribe();
    },
  };
}
