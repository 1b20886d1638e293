import { Module } from '@nestjs/common';
import { HandoffController } from './handoff.controller.js';
import { HostedZonesController } from './hosted-zones.controller.js';
import { InvitationsController } from './invitations.controller.js';
import { LeafLinkController } from './leaf-link.controller.js';
import { MembersController } from './members.controller.js';
import { MovesController } from './moves.controller.js';
import { NotificationsController } from './notifications.controller.js';
import { WorkspacesController } from './workspaces.controller.js';

/** The HTTP side of the workspaces component, composed into the gateway. */
@Module({
  controllers: [
    WorkspacesController,
    MembersController,
    InvitationsController,
    NotificationsController,
    HostedZonesController,
    LeafLinkController,
    HandoffController,
    MovesController,
  ],
})
export class WorkspacesHttpModule {}
