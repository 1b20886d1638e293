import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import type { HostedZonesRepository } from '../../persistence/hosted-zones.repository.js';
import type { HostedZoneSettings } from './hosted-zone-settings.js';
import type { HostedZoneRow } from './hosted-zone-view.js';
import { ZonePlacement } from './zone-placement.js';
import { isHttpsEndpoint } from './zone-fields.js';

const OWNER = randomUUID();

function placement(endpointUrl: string | null, allowHttpEndpoints = false) {
  const zone = {
    id: randomUUID(),
    ownerId: OWNER,
    endpointUrl,
    enrolledAt: new Date(),
    lastHeartbeatAt: new Date(),
  } as HostedZoneRow;
  const zones = { findById: async (id: string) => (id === zone.id ? zone : null) } as unknown as HostedZonesRepository;
  const settings = { offlineAfterMs: 60_000, allowHttpEndpoints } as HostedZoneSettings;
  return { zone, place: () => new ZonePlacement(zones, settings).placeableZone(OWNER, zone.id) };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('ZonePlacement', () => {
  it('places on an online zone whose endpoint is https', async () => {
    const t = placement('https://leaf.example.com');
    await expect(t.place()).resolves.toBe(t.zone);
  });

  it('refuses a plain-http endpoint with 409 HOSTED_ZONE_ENDPOINT_NOT_HTTPS, unless allowed for development', async () => {
    const err = await refusal(placement('http://leaf.example.com').place());
    expect(err).toMatchObject({ status: 409, code: 'HOSTED_ZONE_ENDPOINT_NOT_HTTPS' });
    expect(err.message).toMatch(/https PUBLIC_URL/);
    const dev = placement('http://127.0.0.1:3001', true);
    await expect(dev.place()).resolves.toBe(dev.zone);
  });
});

describe('isHttpsEndpoint', () => {
  it('is true for https URLs only', () => {
    expect(isHttpsEndpoint('https://leaf.example.com')).toBe(true);
    expect(isHttpsEndpoint('HTTPS://leaf.example.com/base')).toBe(true);
    expect(isHttpsEndpoint('http://leaf.example.com')).toBe(false);
    expect(isHttpsEndpoint(null)).toBe(false);
    expect(isHttpsEndpoint('not a url')).toBe(false);
  });
});
