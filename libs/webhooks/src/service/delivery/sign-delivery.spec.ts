import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { messageIdOf, newSigningSecret, signedHeaders } from './sign-delivery.js';

describe('signing deliveries', () => {
  const body = JSON.stringify({ type: 'fragment.created', timestamp: '2026-11-22T00:00:00.000Z', data: {} });

  it('verifies with the standardwebhooks library for each secret during an overlap', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = signedHeaders(messageIdOf('0b6e7c1e-0000-4000-8000-000000000001'), body, [current, previous]);
    expect(headers['webhook-id']).toBe('msg_0b6e7c1e000040008000000000000001');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('fails verification for a tampered body, another secret and a stale timestamp', () => {
    const secret = newSigningSecret();
    const headers = signedHeaders('msg_1', body, [secret]);
    expect(() => new Webhook(secret).verify(body.replace('created', 'deleted'), headers)).toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    const stale = signedHeaders('msg_1', body, [secret], new Date(Date.now() - 10 * 60_000));
    expect(() => new Webhook(secret).verify(body, stale)).toThrow(/timestamp/i);
  });
});
