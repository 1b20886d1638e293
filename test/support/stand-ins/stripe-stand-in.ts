import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A loopback stand-in for the parts of Stripe's API the billing adapter calls, speaking its wire
 * format: form-encoded bodies (`line_items[0][price]=...`), `Authorization: Bearer sk_test_...`,
 * Stripe-shaped objects and errors (`{error: {type, code, param, message}}`) with a `request-id`
 * header. Routes: POST /v1/customers, POST /v1/checkout/sessions, POST /v1/billing_portal/sessions.
 * Mode `fail` answers 500 `api_error` to everything. Requests are recorded for assertions. A
 * customer's creation honours `Idempotency-Key` (the same key answers the first customer).
 *
 * `signEvent` signs a webhook body the way Stripe does (`t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`)
 * with the SDK's own test helper.
 */
export interface StripeRecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The form fields as sent, bracketed names kept (`metadata[kw_user_id]`). */
  form: Record<string, string>;
}

export interface StripeStandIn {
  /** The API origin to configure as STRIPE_API_URL. */
  url: string;
  secretKey: string;
  webhookSecret: string;
  requests: StripeRecordedRequest[];
  setMode(mode: 'ok' | 'fail'): void;
  close(): Promise<void>;
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const requests: StripeRecordedRequest[] = [];
  const customers = new Set<string>();
  const createdByKey = new Map<string, object>();
  let mode: 'ok' | 'fail' = 'ok';
  let counter = 0;
  let base = '';

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res
      .writeHead(status, { 'content-type': 'application/json', 'request-id': `req_standin_${++counter}` })
      .end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, type: string, message: string, extra: object = {}) =>
    send(res, status, { error: { type, message, ...extra } });
  const missing = (form: Record<string, string>, names: string[]) => names.find((n) => !form[n]);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      requests.push({ method: req.method ?? '', path, headers: req.headers, form });
      if (mode === 'fail') return error(res, 500, 'api_error', 'Something went wrong on the stand-in.');
      if (req.headers.authorization !== `Bearer ${secretKey}`)
        return error(res, 401, 'invalid_request_error', 'Invalid API Key provided: sk_test_****');
      const created = Math.floor(Date.now() / 1000);
      const id = (prefix: string) => `${prefix}_standin${String(++counter).padStart(6, '0')}`;
      const lacking = (names: string[]) => {
        const param = missing(form, names);
        if (param)
          error(res, 400, 'invalid_request_error', `Missing required param: ${param}.`, {
            code: 'parameter_missing',
            param,
          });
        return param !== undefined;
      };
      const unknownCustomer = () => {
        if (customers.has(form.customer)) return false;
        error(res, 400, 'invalid_request_error', `No such customer: '${form.customer}'`, {
          code: 'resource_missing',
          param: 'customer',
        });
        return true;
      };

      if (req.method === 'POST' && path === '/v1/customers') {
        // Stripe answers a repeated idempotency key with the first answer.
        const key = req.headers['idempotency-key'];
        const earlier = typeof key === 'string' ? createdByKey.get(key) : undefined;
        if (earlier) return send(res, 200, earlier);
        const customer = id('cus');
        customers.add(customer);
        const body = {
          id: customer,
          object: 'customer',
          created,
          email: form.email ?? null,
          livemode: false,
          metadata: metadataOf(form, 'metadata'),
        };
        if (typeof key === 'string') createdByKey.set(key, body);
        return send(res, 200, body);
      }
      if (req.method === 'POST' && path === '/v1/checkout/sessions') {
        if (lacking(['mode', 'success_url', 'line_items[0][price]']) || (form.customer && unknownCustomer())) return;
        const session = id('cs_test');
        return send(res, 200, {
          id: session,
          object: 'checkout.session',
          created,
          mode: form.mode,
          status: 'open',
          customer: form.customer ?? null,
          client_reference_id: form.client_reference_id ?? null,
          success_url: form.success_url,
          cancel_url: form.cancel_url ?? null,
          url: `${base}/c/pay/${session}`,
          livemode: false,
        });
      }
      if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
        if (lacking(['customer']) || unknownCustomer()) return;
        const session = id('bps');
        return send(res, 200, {
          id: session,
          object: 'billing_portal.session',
          created,
          customer: form.customer,
          return_url: form.return_url ?? null,
          url: `${base}/p/session/${session}`,
          livemode: false,
        });
      }
      error(res, 404, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${path}).`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    secretKey,
    webhookSecret,
    requests,
    setMode(next) {
      mode = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function metadataOf(form: Record<string, string>, prefix: string): Record<string, string> {
  const entries = Object.entries(form).flatMap(([k, v]) => {
    const m = new RegExp(`^${prefix}\\[([^\\]]+)\\]$`).exec(k);
    return m ? [[m[1], v] as const] : [];
  });
  return Object.fromEntries(entries);
}

/** The Stripe-Signature header for `payload`, signed with `secret` at `timestamp` (seconds; default now). */
export function signStripeEvent(payload: string, secret: string, timestamp?: number): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

let events = 0;

/** A Stripe event (snapshot payload) of `type` around `object`; `created` in seconds. */
export function stripeEventOf(
  type: string,
  object: Record<string, unknown>,
  options: { id?: string; created?: number } = {},
): Record<string, unknown> {
  return {
    id: options.id ?? `evt_standin${Date.now()}${++events}`,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: options.created ?? Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** A subscription object as Stripe's current API sends it (the period end on its item). */
export function stripeSubscriptionOf(fields: {
  id: string;
  customer: string;
  status: string;
  priceId: string;
  currentPeriodEnd: number;
  cancelAtPeriodEnd?: boolean;
  userId?: string;
}): Record<string, unknown> {
  return {
    id: fields.id,
    object: 'subscription',
    customer: fields.customer,
    status: fields.status,
    cancel_at_period_end: fields.cancelAtPeriodEnd ?? false,
    metadata: fields.userId ? { kw_user_id: fields.userId } : {},
    items: {
      object: 'list',
      data: [
        {
          id: `si_${fields.id}`,
          object: 'subscription_item',
          current_period_end: fields.currentPeriodEnd,
          price: { id: fields.priceId, object: 'price' },
          quantity: 1,
        },
      ],
    },
  };
}
