import { describe, expect, it } from 'vitest';
import { CredentialsChangedSchema } from '@kw/contracts';
import { broadcast, broadcastSubjectOf, onBroadcast } from './broadcast.js';
import { InProcessBus } from './in-process-bus.js';
import { InProcessTransport } from './in-process-transport.js';

describe('broadcasts', () => {
  it('derive their subject from the message type', () => {
    expect(broadcastSubjectOf(CredentialsChangedSchema)).toBe('identity.v1.broadcast.credentials_changed');
  });

  it('reach every subscriber, whatever its component, decoded', async () => {
    const bus = new InProcessBus();
    const a = new InProcessTransport({ bus, component: 'gateway' });
    const b = new InProcessTransport({ bus, component: 'gateway' });
    const sender = new InProcessTransport({ bus, component: 'agent-auth' });
    const seen: string[] = [];
    onBroadcast(a, CredentialsChangedSchema, (m) => seen.push(`a:${m.credentialIds.join()}`));
    onBroadcast(b, CredentialsChangedSchema, (m) => seen.push(`b:${m.credentialIds.join()}`));
    broadcast(sender, CredentialsChangedSchema, { credentialIds: ['t1'] });
    await new Promise((r) => setTimeout(r, 10));
    expect(seen.sort()).toEqual(['a:t1', 'b:t1']);
  });
});
