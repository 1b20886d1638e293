import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspacesService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import {
  InvitationListDto,
  InvitationResponseDto,
  InviteMemberDto,
  MemberListDto,
  MemberResponseDto,
  UpdateMemberRoleDto,
} from './dto/members.dto.js';
import { invitationJson, list, memberJson } from './presenters.js';

const M = WorkspacesService.method;

/** Members and pending invitations of one workspace. `{memberId}` is the member's user id. */
@ApiTags('Workspace members')
@Controller('api/workspaces/:id')
export class MembersController {
  constructor(private readonly client: ServiceClient) {}

  @Get('members')
  @ApiOperation({ summary: 'List members', description: 'Members only (not subscribers). Scope `members:read`.' })
  @ApiOkResponse({ type: MemberListDto })
  async list(@Param('id') id: string): Promise<MemberListDto> {
    const { members } = await this.client.call(M.listMembers, { workspaceId: id });
    return list(members.map(memberJson));
  }

  @Post('members')
  @ApiOperation({
    summary: 'Invite a member',
    description:
      'Creates a pending invitation (valid 7 days) and notifies the invitee when an account has that ' +
      'email. Roles: collaborator, contributor, viewer (`owner`: 400 `INVALID_ROLE`). 409 ' +
      '`ALREADY_MEMBER`, 409 `INVITATION_PENDING`. Owners only; scope `members:manage`.',
  })
  @ApiCreatedResponse({ type: InvitationResponseDto })
  async invite(@Param('id') id: string, @Body() body: InviteMemberDto): Promise<InvitationResponseDto> {
    const { invitation } = await this.client.call(M.inviteMember, {
      workspaceId: id,
      email: body.email,
      role: body.role,
    });
    return { invitation: invitationJson(invitation) };
  }

  @Patch('members/:memberId')
  @ApiOperation({
    summary: "Change a member's role",
    description:
      'Owners only (any role, owner included); demoting the last owner: 409 `LAST_OWNER`. Scope `members:manage`.',
  })
  @ApiOkResponse({ type: MemberResponseDto })
  async updateRole(
    @Param('id') id: string,
    @Param('memberId') memberId: string,
    @Body() body: UpdateMemberRoleDto,
  ): Promise<MemberResponseDto> {
    const { member } = await this.client.call(M.updateMemberRole, {
      workspaceId: id,
      userId: memberId,
      role: body.role,
    });
    return { member: memberJson(member) };
  }

  @Delete('members/:memberId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove a member (or leave)',
    description:
      'Owners remove anyone; any member may remove themself. The last owner cannot leave: 409 `LAST_OWNER`. Scope `members:manage`.',
  })
  @ApiNoContentResponse()
  async remove(@Param('id') id: string, @Param('memberId') memberId: string): Promise<void> {
    await this.client.call(M.removeMember, { workspaceId: id, userId: memberId });
  }

  @Get('invitations')
  @ApiOperation({ summary: 'List pending invitations', description: 'Members only. Scope `members:read`.' })
  @ApiOkResponse({ type: InvitationListDto })
  async listInvitations(@Param('id') id: string): Promise<InvitationListDto> {
    const { invitations } = await this.client.call(M.listWorkspaceInvitations, { workspaceId: id });
    return list(invitations.map(invitationJson));
  }

  @Delete('invitations/:invitationId')
  @ApiOperation({ summary: 'Revoke a pending invitation', description: 'Owners only; scope `members:manage`.' })
  @ApiOkResponse({ type: InvitationResponseDto })
  async revoke(@Param('id') id: string, @Param('invitationId') invitationId: string): Promise<InvitationResponseDto> {
    const { invitation } = await this.client.call(M.revokeInvitation, { workspaceId: id, invitationId });
    return { invitation: invitationJson(invitation) };
  }
}
