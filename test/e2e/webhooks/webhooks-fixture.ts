import { startFragmentsPlatform, type Person } from '../fragments/fragments-fixture.js';
import { startReceiver, TEST_CA_FILE, waitFor } from './receiver.js';

/**
 * An embedded platform that may deliver to this machine: the documented test setting
 * (WEBHOOKS_ALLOW_PRIVATE_TARGETS) and the test CA, with a retry schedule of milliseconds.
 */
export async function startWebhooksPlatform(env: Record<string, string> = {}) {
  const p = await startFragmentsPlatform({
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOKS_CA_FILE: TEST_CA_FILE,
    WEBHOOKS_RETRY_SCHEDULE: '300ms,600ms,1s,1s,2s,2s',
    ...env,
  });
  const hooks = (ws: string) => `/api/workspaces/${ws}/webhooks`;
  const createWebhook = (owner: Person, ws: string, fields: Record<string, unknown>) =>
    p.api.ok(
      owner.auth,
      'POST',
      hooks(ws),
      { name: 'receiver', events: ['fragment.created', 'fragment.updated', 'fragment.deleted'], ...fields },
      201,
    );
  const createFragment = (
    owner: Person,
    ws: { id: string; noteTypeId: string },
    fields: Record<string, unknown> = {},
  ) =>
    p.api.ok(
      owner.auth,
      'POST',
      '/api/memory-fragments',
      {
        workspaceId: ws.id,
        fragmentTypeId: ws.noteTypeId,
        title: 'Hooked',
        content: 'A fragment for the receiver',
        ...fields,
      },
      201,
    );
  const deliveries = async (owner: Person, ws: string, webhookId: string) =>
    (await p.api.ok(owner.auth, 'GET', `${hooks(ws)}/${webhookId}/deliveries?limit=200`, undefined, 200))
      .items as any[];
  return { ...p, hooks, createWebhook, createFragment, deliveries, startReceiver, waitFor };
}
