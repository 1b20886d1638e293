import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspacesService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { InvitationListDto } from './dto/members.dto.js';
import { AcceptInvitationResponseDto } from './dto/notifications.dto.js';
import { invitationJson, list, workspaceJson } from './presenters.js';

const M = WorkspacesService.method;

/** The caller's side of invitations: those addressed to the caller's email. */
@ApiTags('Invitations')
@Controller('api/invitations')
export class InvitationsController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({
    summary: 'My pending invitations',
    description: "Pending, unexpired invitations to the caller's email. Scope `workspaces:read`.",
  })
  @ApiOkResponse({ type: InvitationListDto })
  async listMine(): Promise<InvitationListDto> {
    const { invitations } = await this.client.call(M.listMyInvitations, {});
    return list(invitations.map(invitationJson));
  }

  @Post(':invitationId/accept')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Accept an invitation',
    description:
      'Only the account whose email was invited (anybody else: 404). Expired: 409 `INVITATION_EXPIRED`. Scope `workspaces:write`.',
  })
  @ApiOkResponse({ type: AcceptInvitationResponseDto })
  async accept(@Param('invitationId') invitationId: string): Promise<AcceptInvitationResponseDto> {
    const { workspace, invitation } = await this.client.call(M.acceptInvitation, { invitationId });
    return { workspace: workspaceJson(workspace), invitation: invitationJson(invitation) };
  }
}
