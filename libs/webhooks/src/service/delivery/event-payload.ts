import type { FragmentChangedPayload } from '@kw/contracts';
import type { DomainEvent } from '@kw/platform-outbox';
import type { WebhookEventType } from '../../webhooks-limits.js';

/**
 * The body of a delivery (docs/webhooks.md): `{type, timestamp, data}` per Standard Webhooks.
 * `data` names the workspace and carries the fragment's metadata at the change; never its
 * content, which receivers fetch with their own credentials if they need it.
 */
export interface WebhookPayload {
  type: WebhookEventType;
  timestamp: string;
  data: {
    workspaceId: string;
    fragment: Record<string, unknown>;
    /** fragment.deleted only: `archived` (restorable by owners) or `permanent`. */
    deletion?: 'archived' | 'permanent';
    /** Sent by the test trigger, not by a real change. */
    test?: true;
  };
}

export function payloadOfEvent(event: DomainEvent): WebhookPayload {
  const p = event.payload as Partial<FragmentChangedPayload>;
  return {
    type: event.eventType as WebhookEventType,
    timestamp: event.occurredAt,
    data: {
      workspaceId: String(p.workspaceId ?? ''),
      fragment: p.fragment ?? { id: p.fragmentId },
      ...(p.deletion && { deletion: p.deletion }),
    },
  };
}

/** A made-up but well-formed event of a kind, for the test trigger. */
export function samplePayload(type: WebhookEventType, workspaceId: string, now = new Date()): WebhookPayload {
  const at = now.toISOString();
  return {
    type,
    timestamp: at,
    data: {
      workspaceId,
      fragment: {
        id: '00000000-0000-4000-8000-000000000000',
        key: 'sample-fragment',
        title: 'Sample fragment (webhook test)',
        fragmentTypeId: '00000000-0000-4000-8000-000000000001',
        tags: ['sample'],
        status: 'published',
        version: type === 'fragment.created' ? 1 : 2,
        createdVia: 'api',
        createdAt: at,
        updatedAt: at,
        archivedAt: type === 'fragment.deleted' ? at : null,
      },
      ...(type === 'fragment.deleted' && { deletion: 'archived' as const }),
      test: true,
    },
  };
}
