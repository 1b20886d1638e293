import { Module } from '@nestjs/common';
import { entitlementProviders } from '@kw/platform-runtime';
import { InvitationsRepository } from '../persistence/invitations.repository.js';
import { MembersRepository } from '../persistence/members.repository.js';
import { NotificationsRepository } from '../persistence/notifications.repository.js';
import { SubscriptionsRepository } from '../persistence/subscriptions.repository.js';
import { workspacesDbProviders } from '../persistence/workspaces-database.js';
import { WorkspacesRepository } from '../persistence/workspaces.repository.js';
import { hostedZoneProviders } from './hosted-zones/hosted-zones.providers.js';
import { AccessChanges } from './access-changes.js';
import { IdentityDirectory } from './identity-directory.js';
import { InvitationsHandlers } from './invitations.handlers.js';
import { MembersHandlers } from './members.handlers.js';
import { NotificationsHandlers } from './notifications.handlers.js';
import { NotifyOwnersHandlers } from './notify-owners.handlers.js';
import { ResolveAccessHandlers } from './resolve-access.handlers.js';
import { SettingsHandlers } from './settings.handlers.js';
import { SubscriptionsHandlers } from './subscriptions.handlers.js';
import { WorkspaceAccess } from './workspace-access.js';
import { WorkspaceListingsHandlers } from './workspace-listings.handlers.js';
import { WorkspacesHandlers } from './workspaces.handlers.js';
import { CloudCopyPurge } from './moves/cloud-copy-purge.js';
import { CloudLeftoverRemoval } from './moves/cloud-leftover-removal.js';
import { CloudLeftoverSweeper } from './moves/cloud-leftover-sweeper.js';
import { WorkspaceMovesHandlers } from './moves/workspace-moves.handlers.js';
import { WorkspaceMovesRepository } from '../persistence/workspace-moves.repository.js';

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
    WorkspacesHandlers,
    WorkspaceListingsHandlers,
    SettingsHandlers,
    SubscriptionsHandlers,
    MembersHandlers,
    InvitationsHandlers,
    NotificationsHandlers,
    ResolveAccessHandlers,
    NotifyOwnersHandlers,
    ...hostedZoneProviders,
    WorkspaceMovesRepository,
    CloudCopyPurge,
    CloudLeftoverRemoval,
    CloudLeftoverSweeper,
    WorkspaceMovesHandlers,
    ...entitlementProviders,
  ],
})
export class WorkspacesServiceModule {}
