import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength } from 'class-validator';
import { INVITATION_ROLES, WORKSPACE_ROLES } from '@kw/platform-access-policy';
import { EMAIL_MAX } from '../../workspaces-limits.js';

export class InviteMemberDto {
  @ApiProperty({ format: 'email', maxLength: EMAIL_MAX })
  @IsEmail()
  @MaxLength(EMAIL_MAX)
  email!: string;

  @ApiProperty({ enum: INVITATION_ROLES, description: '`owner` (or any other value) answers 400 `INVALID_ROLE`' })
  @IsString()
  role!: string;
}

export class UpdateMemberRoleDto {
  @ApiProperty({
    enum: WORKSPACE_ROLES,
    description: 'Any other value answers 400 `INVALID_ROLE`; demoting the last owner 409 `LAST_OWNER`',
  })
  @IsString()
  role!: string;
}

export class MemberDto {
  @ApiProperty({ format: 'uuid', description: 'The member id used in member routes' }) userId!: string;
  @ApiProperty() email!: string;
  @ApiProperty() displayName!: string;
  @ApiProperty({ enum: WORKSPACE_ROLES }) role!: string;
  @ApiProperty({ format: 'date-time' }) joinedAt!: string;
}

export class MemberResponseDto {
  @ApiProperty({ type: MemberDto }) member!: MemberDto;
}

export class MemberListDto {
  @ApiProperty({ type: [MemberDto] }) items!: MemberDto[];
  @ApiProperty() count!: number;
}

export class InvitationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workspaceId!: string;
  @ApiProperty() workspaceName!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ enum: INVITATION_ROLES }) role!: string;
  @ApiProperty({ format: 'uuid' }) invitedBy!: string;
  @ApiProperty({ enum: ['pending', 'accepted', 'revoked', 'expired'] }) status!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', description: '7 days after creation' }) expiresAt!: string;
}

export class InvitationResponseDto {
  @ApiProperty({ type: InvitationDto }) invitation!: InvitationDto;
}

export class InvitationListDto {
  @ApiProperty({ type: [InvitationDto] }) items!: InvitationDto[];
  @ApiProperty() count!: number;
}
