import { Module } from '@nestjs/common';
import { InvitationsRepository } from '../persistence/invitations.repository.js';
import { MembersRepository } from '../persistence/members.repository.js';
import { NotificationsRepository } from '../persistence/notifications.repository.js';
import { SubscriptionsRepository } from '../persistence/subscriptions.repository.js';
import { workspacesDbProviders } from '../persistence/workspaces-database.js';
import { WorkspacesRepository } from '../persistence/workspaces.repository.js';
import { hostedZoneProviders } from './hosted-zones/hosted-zones.providers.js';
import { AccessChanges } from './access-changes.js';
import { IdentityDirectory } from './identity-directory.js';
import { InvitationHandlers } from './invitations.handlers.js';
import { MemberHandlers } from './members.handlers.js';
import { NotificationHandlers } from './notifications.handlers.js';
import { NotifyOwnersHandlers } from './notify-owners.handlers.js';
import { ResolveAccessHandlers } from './resolve-access.handlers.js';
import { SettingsHandlers } from './settings.handlers.js';
import { SubscriptionHandlers } from './subscriptions.handlers.js';
import { WorkspaceAccess } from './workspace-access.js';
import { WorkspaceListingHandlers } from './workspace-listings.handlers.js';
import { WorkspaceLifecycleHandlers } from './workspaces.handlers.js';

/** The service side of the workspaces component: the handlers of kw.workspaces.v1.WorkspacesService and HostedZonesService. */
@Module({
  providers: [
    ...workspacesDbProviders,
    WorkspacesRepository,
    MembersRepository,
    InvitationsRepository,
    SubscriptionsRepository,
    NotificationsRepository,
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
    ResolveAccessHandlers,
    NotifyOwnersHandlers,
    ...hostedZoneProviders,
  ],
})
export class WorkspacesServiceModule {}
