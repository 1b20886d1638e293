import { Module } from '@nestjs/common';
import { hostedZoneProviders } from '../hosted-zones/hosted-zones.providers.js';
import { AccessChanges } from './access-changes.js';
import { controlDbProviders } from './control-db.js';
import { IdentityDirectory } from './identity-directory.js';
import { InvitationHandlers } from './invitations.handlers.js';
import { MemberHandlers } from './members.handlers.js';
import { NotificationHandlers } from './notifications.handlers.js';
import { NotifyOwnersHandler } from './notify-owners.handler.js';
import { ResolveAccessHandler } from './resolve-access.handler.js';
import { SettingsHandlers } from './settings.handlers.js';
import { SubscriptionHandlers } from './subscriptions.handlers.js';
import { WorkspaceAccess } from './workspace-access.js';
import { WorkspaceListingHandlers } from './workspace-listings.handlers.js';
import { WorkspaceLifecycleHandlers } from './workspaces.handlers.js';

/** The service side of the workspaces component: the handlers of kw.workspaces.v1.WorkspacesService and HostedZonesService. */
@Module({
  providers: [
    ...controlDbProviders,
    WorkspaceAccess,
    AccessChanges,
    IdentityDirectory,
    WorkspaceLifecycleHandlers,
    WorkspaceListingHandlers,
    SettingsHandlers,
    SubscriptionHandlers,
    MemberHandlers,
    InvitationHandlers,
    NotificationHandlers,
    ResolveAccessHandler,
    NotifyOwnersHandler,
    ...hostedZoneProviders,
  ],
})
export class WorkspacesServiceModule {}
