import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Logger } from '@kw/platform-observability';
import {
  CloudRefusedError,
  CloudUnavailableError,
  type CloudClient,
  type HeartbeatAnswer,
} from '../service/cloud/cloud-client.js';
import type { RevokedHandoffs } from '../service/credentials/revoked-handoffs.js';
import type { Revocation } from '../service/credentials/revocation-list.js';
import { CloudLink } from '../service/health/cloud-link.js';
import type { HandoffKeys } from '../service/keys/handoff-keys.js';
import type { LeafSettings } from '../leaf-settings.js';
import type { LeafStateRepository } from '../persistence/leaf-state.repository.js';
import type { ServiceClient } from '@kw/platform-transport';
import { HeartbeatLoop } from './heartbeat-loop.js';

function setup(answers: Array<HeartbeatAnswer | Error>, readyFailures = 0) {
  const provisioned = new Map<string, string>();
  const reported: string[] = [];
  const sentFrozen: string[][] = [];
  const readyCalls: string[] = [];
  const logs: Array<{ level: string; msg: string }> = [];
  let refreshes = 0;
  const frozen = new Set<string>();
  const steps: string[] = [];
  let purgeFailures = 0;
  const orphans = new Set<string>();
  const refusals: Array<Date | null> = [];
  const store = {
    current: () => ({ zoneCredential: 'kwz_x' }),
    orphans: () => [...orphans],
    forgetOrphan: async (id: string) => {
      orphans.delete(id);
      steps.push(`forget ${id}`);
    },
    refused: () => !!refusals.at(-1),
    setRefused: async (at: Date | null) => void refusals.push(at),
    frozenWorkspaces: () => [...frozen],
    replaceFrozen: async (ids: string[]) => {
      frozen.clear();
      for (const id of ids) frozen.add(id);
    },
    deprovision: async (id: string) => {
      provisioned.delete(id);
      steps.push(`deprovision ${id}`);
    },
    isProvisioned: (id: string) => provisioned.has(id),
    provision: async (id: string, name: string) => void provisioned.set(id, name),
    markReadyReported: async (id: string) => void reported.push(id),
  } as unknown as LeafStateRepository;
  const cloud = {
    heartbeat: async (credential: string, frozenIds: string[]) => {
      expect(credential).toBe('kwz_x');
      sentFrozen.push(frozenIds);
      const next = answers.shift() ?? { hostedZoneId: 'z', placements: [] };
      if (next instanceof Error) throw next;
      return next;
    },
    placementRemoved: async (_credential: string, workspaceId: string) => void steps.push(`removed ${workspaceId}`),
    placementReady: async (_credential: string, workspaceId: string) => {
      readyCalls.push(workspaceId);
      if (readyFailures-- > 0) throw new CloudUnavailableError('down');
    },
  } as unknown as CloudClient;
  const keys = { stale: () => true, refresh: async () => (refreshes++, true) } as unknown as HandoffKeys;
  const log = (level: string) => (_obj: unknown, msg: string) => void logs.push({ level, msg });
  const logger = {
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    debug: log('debug'),
  } as unknown as Logger;
  const revocationLists: Revocation[][] = [];
  const revoked = { replace: async (entries: Revocation[]) => void revocationLists.push(entries) } as RevokedHandoffs;
  let clock = 1_000;
  const link = new CloudLink(() => (clock += 1_000));
  const client = {
    call: async (method: { name: string }, input: { workspaceId: string }) => {
      if (purgeFailures-- > 0) throw new Error('component down');
      steps.push(`${method.name} ${input.workspaceId}`);
      return {};
    },
  } as unknown as ServiceClient;
  const failPurges = (n: number) => void (purgeFailures = n);
  const loop = new HeartbeatLoop(
    store,
    cloud,
    keys,
    revoked,
    link,
    client,
    { cloudUrl: 'http://cloud' } as LeafSettings,
    logger,
  );
  return {
    loop,
    provisioned,
    reported,
    readyCalls,
    logs,
    refreshes: () => refreshes,
    revocationLists,
    link,
    frozen,
    sentFrozen,
    steps,
    failPurges,
    orphans,
    refusals,
  };
}

describe('HeartbeatLoop', () => {
  it('provisions each placement and reports it ready; a failed report is repeated at the next heartbeat', async () => {
    const ws = randomUUID();
    const placement = { workspaceId: ws, name: 'Research', status: 'processing' };
    const t = setup(
      [
        { hostedZoneId: 'z', placements: [placement] },
        { hostedZoneId: 'z', placements: [placement] },
      ],
      1,
    );
    await t.loop.beat();
    expect(t.provisioned.get(ws)).toBe('Research');
    expect(t.reported).toEqual([]);
    await t.loop.beat();
    expect(t.readyCalls).toEqual([ws, ws]);
    expect(t.reported).toEqual([ws]);
    expect(t.refreshes()).toBe(2);
  });

  it('ignores a placement whose workspace id is not a UUID', async () => {
    const t = setup([
      { hostedZoneId: 'z', placements: [{ workspaceId: '../../etc', name: 'x', status: 'processing' }] },
    ]);
    await t.loop.beat();
    expect(t.provisioned.size).toBe(0);
    expect(t.readyCalls).toEqual([]);
  });

  it('survives an unreachable Cloud: one warning per outage, an info line when it answers again', async () => {
    const t = setup([
      new CloudUnavailableError('refused'),
      new CloudUnavailableError('refused'),
      { hostedZoneId: 'z', placements: [] },
    ]);
    await t.loop.beat();
    await t.loop.beat();
    await t.loop.beat();
    expect(t.logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'heartbeat failed; the Leaf keeps serving with its cached keys',
    ]);
    expect(t.logs.some((l) => l.level === 'info' && l.msg === 'the Cloud answers heartbeats again')).toBe(true);
  });

  it("takes each answer's revocation list; keeps the current one when the Cloud sends none", async () => {
    const entry = { userId: randomUUID(), workspaceId: randomUUID(), revokedAt: Date.now() };
    const t = setup([
      { hostedZoneId: 'z', placements: [], revocations: [entry] },
      { hostedZoneId: 'z', placements: [] },
      { hostedZoneId: 'z', placements: [], revocations: [] },
    ]);
    await t.loop.beat();
    await t.loop.beat();
    await t.loop.beat();
    expect(t.revocationLists).toEqual([[entry], []]);
  });

  it('records the link for the health report: answered, unreachable, refused', async () => {
    const t = setup([
      { hostedZoneId: 'z', placements: [] },
      new CloudUnavailableError('refused'),
      new CloudRefusedError(401, 'UNAUTHENTICATED', 'no'),
    ]);
    await t.loop.beat();
    expect(t.link.state()).toEqual({ lastSuccessAt: expect.any(Number) });
    await t.loop.beat();
    expect(t.link.state()).toMatchObject({ failure: 'unreachable' });
    expect(t.link.state().lastFailureAt).toBeGreaterThan(t.link.state().lastSuccessAt!);
    await t.loop.beat();
    expect(t.link.state().failure).toBe('refused');
  });

  it('stops serving while the Cloud refuses the zone credential (persisted), and serves again once a heartbeat is answered', async () => {
    const t = setup([
      new CloudRefusedError(401, 'UNAUTHENTICATED', 'no'),
      new CloudUnavailableError('down'),
      { hostedZoneId: 'z', placements: [] },
    ]);
    await t.loop.beat();
    expect(t.refusals).toEqual([expect.any(Date)]);
    // Unreachable is not refused: nothing changes.
    await t.loop.beat();
    expect(t.refusals).toHaveLength(1);
    await t.loop.beat();
    expect(t.refusals.at(-1)).toBeNull();
  });

  it('purges the workspaces of the zone the Leaf served before it enrolled into its zone now, even while the Cloud is unreachable; a failure is retried', async () => {
    const ws = randomUUID();
    const t = setup([new CloudUnavailableError('down'), new CloudUnavailableError('down')]);
    t.orphans.add(ws);
    t.failPurges(1);
    await t.loop.beat();
    expect(t.steps).toEqual([]);
    expect(t.logs.some((l) => l.level === 'error' && /retrying/.test(l.msg))).toBe(true);
    await t.loop.beat();
    expect(t.steps).toEqual([
      `PurgeWorkspaceFragments ${ws}`,
      `PurgeWorkspaceSearchData ${ws}`,
      `PurgeWorkspaceWebhooks ${ws}`,
      `forget ${ws}`,
    ]);
    expect(t.orphans.size).toBe(0);
  });

  it('says how to recover when the Cloud refuses the zone credential', async () => {
    const t = setup([new CloudRefusedError(401, 'UNAUTHENTICATED', 'no')]);
    await t.loop.beat();
    expect(t.logs.find((l) => l.level === 'error')?.msg).toMatch(/new ENROLLMENT_TOKEN/);
  });

  it('serves the workspaces the Cloud says are moving out read-only, and reports them at the next heartbeat', async () => {
    const ws = randomUUID();
    const t = setup([
      { hostedZoneId: 'z', placements: [], frozenWorkspaceIds: [ws] },
      { hostedZoneId: 'z', placements: [] },
      { hostedZoneId: 'z', placements: [], frozenWorkspaceIds: [] },
    ]);
    await t.loop.beat();
    expect([...t.frozen]).toEqual([ws]);
    await t.loop.beat();
    // No list from the Cloud: the Leaf keeps what it has.
    expect([...t.frozen]).toEqual([ws]);
    await t.loop.beat();
    expect([...t.frozen]).toEqual([]);
    expect(t.sentFrozen).toEqual([[], [ws], [ws]]);
  });

  it('removes a workspace that moved away: stops serving it, purges each component, then tells the Cloud; a failure is retried', async () => {
    const ws = randomUUID();
    const removed = { hostedZoneId: 'z', placements: [], removedWorkspaceIds: [ws] };
    const t = setup([removed, removed]);
    t.provisioned.set(ws, 'Moved');
    t.failPurges(1);
    await t.loop.beat();
    expect(t.steps).toEqual([`deprovision ${ws}`]);
    expect(t.logs.some((l) => l.level === 'error' && /retrying/.test(l.msg))).toBe(true);
    await t.loop.beat();
    expect(t.provisioned.has(ws)).toBe(false);
    expect(t.steps.slice(1)).toEqual([
      `deprovision ${ws}`,
      `PurgeWorkspaceFragments ${ws}`,
      `PurgeWorkspaceSearchData ${ws}`,
      `PurgeWorkspaceWebhooks ${ws}`,
      `removed ${ws}`,
    ]);
  });
});
