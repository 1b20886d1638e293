import { Module } from '@nestjs/common';
import { InvitationsController } from './invitations.controller.js';
import { MembersController } from './members.controller.js';
import { NotificationsController } from './notifications.controller.js';
import { WorkspacesController } from './workspaces.controller.js';

/** The HTTP side of the workspaces component, composed into the gateway. */
@Module({ controllers: [WorkspacesController, MembersController, InvitationsController, NotificationsController] })
export class WorkspacesHttpModule {}
