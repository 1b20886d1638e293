import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { eventStreamName } from '@kw/platform-outbox';

/**
 * Deletes the JetStream stream a test run's subject prefix made (`KW_EVENTS_<PREFIX>`), so
 * test runs do not pile streams up on the shared NATS server. A stream that was never made is fine.
 */
export async function deleteEventStream(natsUrl: string, subjectPrefix: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(eventStreamName(subjectPrefix)).catch((err: unknown) => {
      if (!/stream not found/i.test(String((err as Error)?.message))) throw err;
    });
  } finally {
    await nc.close();
  }
}
