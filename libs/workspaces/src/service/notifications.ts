import type { MessageInitShape } from '@bufbuild/protobuf';
import type { NotificationSchema } from '@kw/contracts';
import type { NotificationRow } from '../persistence/rows.js';
import { iso } from './workspace-view.js';

/** Kinds of notification this component writes. */
export const NotificationKind = {
  WORKSPACE_INVITATION: 'workspace.invitation',
  /** Written for the webhooks component (NotifyWorkspaceOwners). */
  WEBHOOK_DISABLED: 'webhook.disabled',
  /** A workspace reached 80 % or 100 % of a plan limit (LimitNotices of @kw/platform-entitlements). */
  WORKSPACE_LIMIT: 'workspace.limit',
  /** An export or import job of the workspace ended (the fragments component's transfers). */
  WORKSPACE_TRANSFER: 'workspace.transfer',
} as const;

export function notificationView(row: NotificationRow): MessageInitShape<typeof NotificationSchema> {
  return {
    id: row.id,
    kind: row.kind,
    payloadJson: JSON.stringify(row.payload ?? {}),
    createdAt: iso(row.createdAt),
    readAt: iso(row.readAt),
  };
}
