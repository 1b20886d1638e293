import { ApiProperty } from '@nestjs/swagger';
import { InvitationDto } from './members.dto.js';
import { WorkspaceDto } from './workspace.dto.js';

export class NotificationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'workspace.invitation' }) kind!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Depends on the kind; `workspace.invitation`: invitationId, workspaceId, workspaceName, role, invitedBy',
  })
  payload!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) readAt!: string | null;
}

export class NotificationResponseDto {
  @ApiProperty({ type: NotificationDto }) notification!: NotificationDto;
}

export class NotificationPageDto {
  @ApiProperty({ type: [NotificationDto], description: 'Newest first' }) items!: NotificationDto[];
  @ApiProperty() count!: number;
  @ApiProperty({ description: 'Matching notifications in all pages' }) totalCount!: number;
  @ApiProperty({ description: 'Unread notifications of the caller (whatever the filter)' }) unreadCount!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export class MarkAllReadResponseDto {
  @ApiProperty({ description: 'Notifications marked read by this call' }) updated!: number;
}

export class AcceptInvitationResponseDto {
  @ApiProperty({ type: WorkspaceDto }) workspace!: WorkspaceDto;
  @ApiProperty({ type: InvitationDto }) invitation!: InvitationDto;
}
