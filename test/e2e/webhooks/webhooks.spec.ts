import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNKNOWN_ID } from '../workspaces/workspaces-api.js';
import type { Person } from '../fragments/fragments-fixture.js';
import { startWebhooksPlatform } from './webhooks-fixture.js';

type Platform = Awaited<ReturnType<typeof startWebhooksPlatform>>;
type Receiver = Awaited<ReturnType<Platform['startReceiver']>>;

describe('webhooks (embedded, real HTTPS receiver)', () => {
  let p: Platform;
  let receiver: Receiver;
  let owner: Person;
  let ws: { id: string; noteTypeId: string };

  beforeAll(async () => {
    p = await startWebhooksPlatform();
    receiver = await p.startReceiver();
    owner = await p.person();
    ws = await p.workspace(owner);
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await p?.stop();
  });

  describe('configuration', () => {
    it('creates an endpoint: the secret is answered once, header values are masked', async () => {
      const created = await p.createWebhook(owner, ws.id, {
        url: receiver.url('/config'),
        headers: { Authorization: 'Bearer receiver-token' },
      });
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(created.webhook).toMatchObject({
        name: 'receiver',
        url: receiver.url('/config'),
        enabled: true,
        disabledReason: null,
        headers: { Authorization: '********' },
      });
      const read = await p.api.ok(owner.auth, 'GET', `${p.hooks(ws.id)}/${created.webhook.id}`, undefined, 200);
      expect(JSON.stringify(read)).not.toContain('whsec_');
      expect(JSON.stringify(read)).not.toContain('receiver-token');
      const list = await p.api.ok(owner.auth, 'GET', p.hooks(ws.id), undefined, 200);
      expect(list.items.map((w: any) => w.id)).toContain(created.webhook.id);
    });

    it('refuses bad input with 400 and writes nothing', async () => {
      const before = (await p.api.ok(owner.auth, 'GET', p.hooks(ws.id), undefined, 200)).count;
      const bad = [
        { name: 'x', url: receiver.url(), events: ['fragment.archived'] },
        { name: 'x', url: receiver.url(), events: [] },
        { name: 'x', url: receiver.url().replace('https:', 'http:'), events: ['fragment.created'] },
        { name: 'x', url: receiver.url(), events: ['fragment.created'], headers: { 'webhook-signature': 'forged' } },
        { name: 'x', url: receiver.url(), events: ['fragment.created'], headers: { 'X-Bad': 'line\r\nInjected: yes' } },
        { url: receiver.url(), events: ['fragment.created'] },
        { name: 'x', url: 'not a url', events: ['fragment.created'] },
      ];
      for (const body of bad) {
        const res = await p.api.call(owner.auth, 'POST', p.hooks(ws.id), body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toMatch(/VALIDATION_FAILED|BAD_REQUEST/);
        // The one shape of a field error (docs/errors.md), whichever check refused it.
        if (res.body.code === 'VALIDATION_FAILED')
          expect(res.body.fields, JSON.stringify(res.body)).toEqual([
            { field: expect.any(String), problems: [expect.any(String)] },
          ]);
      }
      expect((await p.api.ok(owner.auth, 'GET', p.hooks(ws.id), undefined, 200)).count).toBe(before);
    });

    it('updates, re-checks a new URL, clears headers, and deletes', async () => {
      const { webhook } = await p.createWebhook(owner, ws.id, {
        url: receiver.url('/update'),
        headers: { 'X-Token': 'abc' },
        enabled: false,
      });
      const path = `${p.hooks(ws.id)}/${webhook.id}`;
      expect((await p.api.call(owner.auth, 'PATCH', path, { url: 'https://10.0.0.1/hook' })).status).toBe(200); // private targets allowed by the test setting
      const refused = await p.api.call(owner.auth, 'PATCH', path, { url: 'http://example.com/hook' });
      expect(refused.status).toBe(400);
      const changed = await p.api.ok(
        owner.auth,
        'PATCH',
        path,
        { name: 'renamed', events: ['fragment.deleted'], headers: null },
        200,
      );
      expect(changed.webhook).toMatchObject({
        name: 'renamed',
        events: ['fragment.deleted'],
        headers: {},
        url: 'https://10.0.0.1/hook',
      });
      await p.api.ok(owner.auth, 'DELETE', path, undefined, 200);
      expect((await p.api.call(owner.auth, 'GET', path)).status).toBe(404);
    });

    it('keeps a header value when a PATCH sends back the mask it read, and never stores the mask', async () => {
      const { webhook } = await p.createWebhook(owner, ws.id, {
        url: receiver.url('/masked'),
        headers: { 'X-Recv-Token': 'real-receiver-secret', 'X-Other': 'old' },
      });
      const path = `${p.hooks(ws.id)}/${webhook.id}`;
      const read = (await p.api.ok(owner.auth, 'GET', path, undefined, 200)).webhook;
      expect(read.headers).toEqual({ 'X-Recv-Token': '********', 'X-Other': '********' });
      // What a form's "save" sends: the masks it read, one value changed, one header added.
      await p.api.ok(
        owner.auth,
        'PATCH',
        path,
        { name: 'saved', headers: { ...read.headers, 'X-Other': 'new', 'X-Added': 'added' } },
        200,
      );
      await p.api.ok(
        owner.auth,
        'POST',
        `${p.hooks(ws.id)}/trigger`,
        { eventType: 'fragment.created', webhookId: webhook.id },
        200,
      );
      const [got] = receiver.at('/masked');
      expect(got!.headers).toMatchObject({
        'x-recv-token': 'real-receiver-secret',
        'x-other': 'new',
        'x-added': 'added',
      });
      // The mask for a header that has no stored value is refused, on PATCH and on create.
      const unknown = await p.api.call(owner.auth, 'PATCH', path, { headers: { 'X-New': '********' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.fields).toEqual([{ field: 'headers', problems: [expect.stringMatching(/\*{8}/)] }]);
      const created = await p.api.call(owner.auth, 'POST', p.hooks(ws.id), {
        name: 'x',
        url: receiver.url('/masked'),
        events: ['fragment.created'],
        headers: { 'X-Token': '********' },
      });
      expect(created.status).toBe(400);
    });

    it('is workspace management: a viewer or contributor gets 403, another tenant 404', async () => {
      const viewer = await p.person();
      const contributor = await p.person();
      const stranger = await p.person();
      await p.api.addMember(owner.auth, ws.id, viewer, 'viewer');
      await p.api.addMember(owner.auth, ws.id, contributor, 'contributor');
      const body = { name: 'x', url: receiver.url(), events: ['fragment.created'] };
      expect((await p.api.call(viewer.auth, 'POST', p.hooks(ws.id), body)).status).toBe(403);
      expect((await p.api.call(contributor.auth, 'POST', p.hooks(ws.id), body)).status).toBe(403);
      expect((await p.api.call(viewer.auth, 'GET', p.hooks(ws.id))).status).toBe(403);
      const hidden = await p.api.call(stranger.auth, 'GET', p.hooks(ws.id));
      const missing = await p.api.call(stranger.auth, 'GET', p.hooks(UNKNOWN_ID));
      expect(hidden.status).toBe(404);
      expect(hidden.text).toBe(missing.text);
    });
  });

  describe('delivery', () => {
    it('delivers fragment events signed per Standard Webhooks, with the configured headers', async () => {
      const { webhook, secret } = await p.createWebhook(owner, ws.id, {
        url: receiver.url('/signed'),
        headers: { Authorization: 'Bearer receiver-token' },
      });
      const { fragment } = await p.createFragment(owner, ws, { title: 'Signed event', tags: ['hooks'] });
      const [got] = await p.waitFor(
        'fragment.created at the receiver',
        () => receiver.at('/signed').length > 0 && receiver.at('/signed'),
      );
      const payload = new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>) as any;
      expect(payload).toMatchObject({
        type: 'fragment.created',
        data: { workspaceId: ws.id, fragment: { id: fragment.id, title: 'Signed event', version: 1 } },
      });
      expect(payload.data.fragment.content).toBeUndefined();
      expect(Date.parse(payload.timestamp)).not.toBeNaN();
      expect(got!.headers['authorization']).toBe('Bearer receiver-token');
      expect(got!.headers['content-type']).toBe('application/json');
      expect(got!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);

      // What a receiver must refuse: a changed body, another secret, a replay long after.
      expect(() =>
        new Webhook(secret).verify(
          got!.body.replace('Signed event', 'Forged event'),
          got!.headers as Record<string, string>,
        ),
      ).toThrow();
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(
          got!.body,
          got!.headers as Record<string, string>,
        ),
      ).toThrow();
      const stale = {
        ...(got!.headers as Record<string, string>),
        'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600),
      };
      expect(() => new Webhook(secret).verify(got!.body, stale)).toThrow();

      // The delivery history shows the success (recorded once the receiver's answer is read, which
      // can be a moment after the receiver saw the request).
      const delivery = await p.waitFor('the delivery recorded', async () => {
        const [latest] = await p.deliveries(owner, ws.id, webhook.id);
        return latest?.status !== 'delivering' && latest;
      });
      expect(delivery).toMatchObject({
        status: 'succeeded',
        attempts: 1,
        messageId: got!.headers['webhook-id'],
        eventType: 'fragment.created',
        test: false,
      });
      expect(delivery.attemptHistory[0]).toMatchObject({ number: 1, statusCode: 204, failure: null });
    });

    it('sends only the selected kinds: updates and archives arrive, creates do not', async () => {
      const { secret } = await p.createWebhook(owner, ws.id, {
        url: receiver.url('/selected'),
        events: ['fragment.updated', 'fragment.deleted'],
      });
      const { fragment } = await p.createFragment(owner, ws, { title: 'Selected' });
      await p.api.ok(owner.auth, 'PATCH', `/api/memory-fragments/${fragment.id}`, { title: 'Selected, renamed' }, 200);
      await p.api.ok(owner.auth, 'DELETE', `/api/memory-fragments/${fragment.id}`, undefined, 200);
      const got = await p.waitFor('two events', () => receiver.at('/selected').length >= 2 && receiver.at('/selected'));
      const payloads = got.map((r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as any);
      expect(payloads.map((x) => x.type).sort()).toEqual(['fragment.deleted', 'fragment.updated']);
      expect(payloads.find((x) => x.type === 'fragment.deleted').data).toMatchObject({
        deletion: 'archived',
        fragment: { id: fragment.id },
      });
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.at('/selected')).toHaveLength(2);
    });

    it('signs with the old and the new secret during a rotation overlap', async () => {
      const { webhook, secret: old } = await p.createWebhook(owner, ws.id, { url: receiver.url('/rotated') });
      const rotated = await p.api.ok(
        owner.auth,
        'POST',
        `${p.hooks(ws.id)}/${webhook.id}/rotate-secret`,
        { overlapSeconds: 600 },
        200,
      );
      expect(rotated.secret).not.toBe(old);
      expect(Date.parse(rotated.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(500_000);
      expect(rotated.webhook.secretOverlapUntil).toBe(rotated.previousSecretExpiresAt);
      await p.createFragment(owner, ws, { title: 'After rotation' });
      const [got] = await p.waitFor(
        'a delivery after rotation',
        () => receiver.at('/rotated').length > 0 && receiver.at('/rotated'),
      );
      expect(got!.headers['webhook-signature']!.toString().split(' ')).toHaveLength(2);
      for (const secret of [old, rotated.secret])
        expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toBeTruthy();

      // Rotating again during the overlap: still two signatures, the newest secret and the one
      // it replaced; the oldest stops signing at once.
      const rotate = () =>
        p.api.ok(owner.auth, 'POST', `${p.hooks(ws.id)}/${webhook.id}/rotate-secret`, { overlapSeconds: 600 }, 200);
      const second = await rotate();
      const third = await rotate();
      const trigger = await p.api.ok(
        owner.auth,
        'POST',
        `${p.hooks(ws.id)}/trigger`,
        { eventType: 'fragment.created', webhookId: webhook.id },
        200,
      );
      expect(trigger.outcomes[0]).toMatchObject({ ok: true });
      const last = receiver.at('/rotated').at(-1)!;
      expect(last.headers['webhook-signature']!.toString().split(' ')).toHaveLength(2);
      for (const secret of [second.secret, third.secret])
        expect(new Webhook(secret).verify(last.body, last.headers as Record<string, string>)).toBeTruthy();
      for (const secret of [old, rotated.secret])
        expect(() => new Webhook(secret).verify(last.body, last.headers as Record<string, string>)).toThrow();
    });

    it('retries while the receiver is down and delivers once it is up, with the same webhook-id', async () => {
      const flaky = await p.startReceiver();
      const { webhook, secret } = await p.createWebhook(owner, ws.id, { url: flaky.url('/flaky') });
      await flaky.down();
      await p.createFragment(owner, ws, { title: 'While down' });
      const failed = await p.waitFor('two failed attempts', async () => {
        const [d] = await p.deliveries(owner, ws.id, webhook.id);
        return d && d.attempts >= 2 && d;
      });
      expect(failed.status).toBe('pending');
      expect(failed.attemptHistory.every((a: any) => a.failure === 'connect')).toBe(true);
      expect(failed.nextAttemptAt).not.toBeNull();
      await flaky.up();
      const [got] = await p.waitFor(
        'the delivery after the receiver came back',
        () => flaky.at('/flaky').length > 0 && flaky.at('/flaky'),
        30_000,
      );
      expect(got!.headers['webhook-id']).toBe(failed.messageId);
      expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toMatchObject({
        type: 'fragment.created',
      });
      const done = await p.waitFor('succeeded', async () => {
        const [d] = await p.deliveries(owner, ws.id, webhook.id);
        return d?.status === 'succeeded' && d;
      });
      expect(done.attempts).toBeGreaterThanOrEqual(3);
      expect(flaky.at('/flaky')).toHaveLength(1);
      await flaky.close();
    });

    it("one tenant's hanging endpoint does not hold up another tenant's endpoint on the same host and port", async () => {
      const shared = await p.startReceiver();
      const hanging: Array<{ end(): void }> = [];
      shared.setResponder((req, res) => {
        if (req.path === '/hang') hanging.push(res);
        else res.writeHead(204).end();
      });
      try {
        const a = await p.person();
        const wsA = await p.workspace(a);
        const b = await p.person();
        const wsB = await p.workspace(b);
        await p.createWebhook(a, wsA.id, { url: shared.url('/hang'), events: ['fragment.created'] });
        await p.createWebhook(b, wsB.id, { url: shared.url('/ok-b'), events: ['fragment.created'] });
        await Promise.all(Array.from({ length: 20 }, (_, i) => p.createFragment(a, wsA, { title: `Hang ${i}` })));
        // The hanging endpoint holds its 16 places (and no more).
        await p.waitFor('16 requests hanging at /hang', () => shared.at('/hang').length >= 16, 15_000);
        const sent = Date.now();
        await p.createFragment(b, wsB, { title: 'Not held up' });
        await p.waitFor('the other tenant delivered', () => shared.at('/ok-b').length === 1, 5_000);
        expect(Date.now() - sent).toBeLessThan(5_000);
        // A is still hanging: B did not simply wait for A's timeouts.
        expect(hanging.length).toBeGreaterThanOrEqual(16);
        expect(shared.at('/hang')).toHaveLength(16);
      } finally {
        for (const res of hanging) res.end();
        await shared.close();
      }
    });

    it('honours Retry-After on 429 and treats a redirect as a failure it never follows', async () => {
      receiver.setResponder((req, res) => {
        if (req.path === '/busy') res.writeHead(429, { 'retry-after': '3' }).end();
        else if (req.path === '/broken') res.writeHead(500, { 'retry-after': '3600' }).end();
        else if (req.path === '/moved') res.writeHead(302, { location: receiver.url('/moved-target') }).end();
        else res.writeHead(204).end();
      });
      const busy = await p.createWebhook(owner, ws.id, { url: receiver.url('/busy') });
      const moved = await p.createWebhook(owner, ws.id, { url: receiver.url('/moved') });
      const broken = await p.createWebhook(owner, ws.id, { url: receiver.url('/broken') });
      await p.createFragment(owner, ws, { title: 'Busy and moved' });
      const waited = await p.waitFor('the 429 attempt', async () => {
        const [d] = await p.deliveries(owner, ws.id, busy.webhook.id);
        return d?.attempts === 1 && d.status === 'pending' && d;
      });
      expect(waited.lastStatusCode).toBe(429);
      // The schedule says 300 ms; the receiver asked for 3 s.
      expect(Date.parse(waited.nextAttemptAt) - Date.parse(waited.attemptHistory[0].startedAt)).toBeGreaterThanOrEqual(
        2900,
      );
      // Retry-After counts on 429 and 503 only: a 500 follows the schedule (300 ms, ±20%).
      const scheduled = await p.waitFor('the 500 attempt', async () => {
        const [d] = await p.deliveries(owner, ws.id, broken.webhook.id);
        return d?.attempts >= 1 && d.attemptHistory[0] && d;
      });
      expect(scheduled.attemptHistory[0]).toMatchObject({ statusCode: 500, failure: 'status' });
      if (scheduled.status === 'pending')
        expect(Date.parse(scheduled.nextAttemptAt) - Date.parse(scheduled.attemptHistory[0].startedAt)).toBeLessThan(
          60_000,
        );
      else expect(scheduled.attempts).toBeGreaterThan(1); // retried already
      const redirected = await p.waitFor('the redirect attempt', async () => {
        const [d] = await p.deliveries(owner, ws.id, moved.webhook.id);
        return d?.attempts >= 1 && d;
      });
      expect(redirected.attemptHistory[0]).toMatchObject({ statusCode: 302, failure: 'redirect' });
      expect(receiver.at('/moved-target')).toHaveLength(0);
      receiver.setResponder((_req, res) => res.writeHead(204).end());
      for (const id of [busy.webhook.id, moved.webhook.id, broken.webhook.id])
        await p.api.ok(owner.auth, 'DELETE', `${p.hooks(ws.id)}/${id}`, undefined, 200);
    });

    it('disables an endpoint that answers 410 Gone and tells the owners', async () => {
      receiver.setResponder((req, res) => res.writeHead(req.path === '/gone' ? 410 : 204).end());
      const { webhook } = await p.createWebhook(owner, ws.id, { name: 'gone endpoint', url: receiver.url('/gone') });
      await p.createFragment(owner, ws, { title: 'To a gone endpoint' });
      const disabled = await p.waitFor('the endpoint disabled', async () => {
        const { webhook: w } = await p.api.ok(owner.auth, 'GET', `${p.hooks(ws.id)}/${webhook.id}`, undefined, 200);
        return !w.enabled && w;
      });
      expect(disabled.disabledReason).toBe('gone');
      const [delivery] = await p.deliveries(owner, ws.id, webhook.id);
      expect(delivery).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 });
      const notes = await p.api.ok(owner.auth, 'GET', '/api/notifications', undefined, 200);
      const note = (notes.items ?? notes.notifications).find((n: any) => n.kind === 'webhook.disabled');
      expect(note?.payload).toMatchObject({ webhookId: webhook.id, reason: 'gone', workspaceId: ws.id });
      // Re-enabling clears the reason.
      const enabled = await p.api.ok(owner.auth, 'PATCH', `${p.hooks(ws.id)}/${webhook.id}`, { enabled: true }, 200);
      expect(enabled.webhook).toMatchObject({ enabled: true, disabledReason: null });
      receiver.setResponder((_req, res) => res.writeHead(204).end());
    });

    it('redelivers a delivery on request with the same webhook-id', async () => {
      const { webhook } = await p.createWebhook(owner, ws.id, { url: receiver.url('/again') });
      await p.createFragment(owner, ws, { title: 'Twice' });
      await p.waitFor('first delivery', () => receiver.at('/again').length === 1);
      const [delivery] = await p.deliveries(owner, ws.id, webhook.id);
      const queued = await p.api.ok(
        owner.auth,
        'POST',
        `${p.hooks(ws.id)}/${webhook.id}/deliveries/${delivery.id}/redeliver`,
        undefined,
        202,
      );
      expect(queued.delivery.status).toMatch(/pending|delivering|succeeded/);
      const both = await p.waitFor('redelivery', () => receiver.at('/again').length === 2 && receiver.at('/again'));
      expect(both[1]!.headers['webhook-id']).toBe(both[0]!.headers['webhook-id']);
      const one = await p.api.ok(
        owner.auth,
        'GET',
        `${p.hooks(ws.id)}/${webhook.id}/deliveries/${delivery.id}`,
        undefined,
        200,
      );
      await p.waitFor(
        'two attempts recorded',
        async () =>
          (
            await p.api.ok(
              owner.auth,
              'GET',
              `${p.hooks(ws.id)}/${webhook.id}/deliveries/${delivery.id}`,
              undefined,
              200,
            )
          ).delivery.attempts === 2,
      );
      expect(one.delivery.id).toBe(delivery.id);
      expect(
        (await p.api.call(owner.auth, 'POST', `${p.hooks(ws.id)}/${webhook.id}/deliveries/${UNKNOWN_ID}/redeliver`))
          .status,
      ).toBe(404);
      // Unknown body fields are refused like on the other routes, and nothing is sent.
      const unknown = await p.api.call(
        owner.auth,
        'POST',
        `${p.hooks(ws.id)}/${webhook.id}/deliveries/${delivery.id}/redeliver`,
        { bogus: 1 },
      );
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ field: 'bogus' }] });
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.at('/again')).toHaveLength(2);
      // The served OpenAPI document declares what the route answers.
      const doc: any = await (await fetch(`${p.platform.url}/api/docs`)).json();
      const op = doc.paths['/api/workspaces/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver'].post;
      expect(Object.keys(op.responses).sort()).toEqual(['202', '400', '404', '409']);
    });
    it('refuses to redeliver to a disabled endpoint (409) and keeps the recorded outcome', async () => {
      const { webhook } = await p.createWebhook(owner, ws.id, { url: receiver.url('/disabled-again') });
      await p.createFragment(owner, ws, { title: 'Delivered, then disabled' });
      const delivered = await p.waitFor('the delivery succeeded', async () => {
        const [d] = await p.deliveries(owner, ws.id, webhook.id);
        return d?.status === 'succeeded' && d;
      });
      await p.api.ok(owner.auth, 'PATCH', `${p.hooks(ws.id)}/${webhook.id}`, { enabled: false }, 200);
      const refused = await p.api.call(
        owner.auth,
        'POST',
        `${p.hooks(ws.id)}/${webhook.id}/deliveries/${delivered.id}/redeliver`,
      );
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'CONFLICT', error: expect.stringMatching(/disabled/) });
      await new Promise((r) => setTimeout(r, 1_500)); // a worker pass or more
      const [after] = await p.deliveries(owner, ws.id, webhook.id);
      expect(after).toMatchObject({
        id: delivered.id,
        status: 'succeeded',
        attempts: 1,
        completedAt: delivered.completedAt,
      });
      expect(receiver.at('/disabled-again')).toHaveLength(1);
    });
  });

  describe('test trigger', () => {
    it('sends a signed sample of the chosen kind to every enabled endpoint that selected it, and answers each outcome', async () => {
      const own = await p.person();
      const w = await p.workspace(own);
      receiver.setResponder((req, res) => res.writeHead(req.path === '/trigger-fails' ? 500 : 200).end('ok'));
      const good = await p.createWebhook(own, w.id, { url: receiver.url('/trigger-ok') });
      const bad = await p.createWebhook(own, w.id, { url: receiver.url('/trigger-fails') });
      await p.createWebhook(own, w.id, { url: receiver.url('/trigger-unselected'), events: ['fragment.created'] });
      await p.createWebhook(own, w.id, { url: receiver.url('/trigger-disabled'), enabled: false });
      const result = await p.api.ok(
        own.auth,
        'POST',
        `${p.hooks(w.id)}/trigger`,
        { eventType: 'fragment.deleted' },
        200,
      );
      expect(result.outcomes).toHaveLength(2);
      const byId = new Map(result.outcomes.map((o: any) => [o.webhookId, o]));
      expect(byId.get(good.webhook.id)).toMatchObject({ ok: true, statusCode: 200, failure: null });
      expect(byId.get(bad.webhook.id)).toMatchObject({ ok: false, statusCode: 500, failure: 'status' });
      const [sample] = receiver.at('/trigger-ok');
      const payload = new Webhook(good.secret).verify(sample!.body, sample!.headers as Record<string, string>) as any;
      expect(payload).toMatchObject({
        type: 'fragment.deleted',
        data: { workspaceId: w.id, test: true, deletion: 'archived' },
      });
      expect(receiver.at('/trigger-unselected')).toHaveLength(0);
      expect(receiver.at('/trigger-disabled')).toHaveLength(0);

      // One endpoint by id, even a disabled one; a test delivery is recorded and not retried.
      const one = await p.api.ok(
        own.auth,
        'POST',
        `${p.hooks(w.id)}/trigger`,
        { eventType: 'fragment.created', webhookId: bad.webhook.id },
        200,
      );
      expect(one.outcomes).toHaveLength(1);
      const history = await p.deliveries(own, w.id, bad.webhook.id);
      expect(history[0]).toMatchObject({ test: true, status: 'failed', attempts: 1 });
      // An unreleased kind is refused naming the field that was sent.
      const unreleased = await p.api.call(own.auth, 'POST', `${p.hooks(w.id)}/trigger`, {
        eventType: 'fragment.archived',
      });
      expect(unreleased.status).toBe(400);
      expect(unreleased.body).toEqual({
        error: 'eventType: must be one of: fragment.created, fragment.updated, fragment.deleted',
        code: 'VALIDATION_FAILED',
        fields: [
          { field: 'eventType', problems: ['must be one of: fragment.created, fragment.updated, fragment.deleted'] },
        ],
      });
      expect(
        (
          await p.api.call(own.auth, 'POST', `${p.hooks(w.id)}/trigger`, {
            eventType: 'fragment.created',
            webhookId: UNKNOWN_ID,
          })
        ).status,
      ).toBe(404);
      receiver.setResponder((_req, res) => res.writeHead(204).end());
    });
  });
});
