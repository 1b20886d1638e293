import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspacesService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { NOTIFICATIONS_LIMIT_DEFAULT } from '../workspaces-limits.js';
import { MarkAllReadResponseDto, NotificationPageDto, NotificationResponseDto } from './dto/notifications.dto.js';
import { NotificationsQueryDto } from './dto/query.dto.js';
import { list, notificationJson } from './presenters.js';

const M = WorkspacesService.method;

/** The caller's notifications. */
@ApiTags('Notifications')
@Controller('api/notifications')
export class NotificationsController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @ApiOperation({ summary: 'My notifications', description: 'Newest first. Scope `profile:read`.' })
  @ApiOkResponse({ type: NotificationPageDto })
  async list(@Query() query: NotificationsQueryDto): Promise<NotificationPageDto> {
    const limit = query.limit ?? NOTIFICATIONS_LIMIT_DEFAULT;
    const offset = query.offset ?? 0;
    const answer = await this.client.call(M.listNotifications, {
      unreadOnly: query.unreadOnly ?? false,
      limit,
      offset,
    });
    return {
      ...list(answer.notifications.map(notificationJson)),
      totalCount: answer.totalCount,
      unreadCount: answer.unreadCount,
      limit,
      offset,
    };
  }

  @Post('read-all')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mark every notification read', description: 'Scope `profile:write`.' })
  @ApiOkResponse({ type: MarkAllReadResponseDto })
  async markAllRead(): Promise<MarkAllReadResponseDto> {
    const { updated } = await this.client.call(M.markAllNotificationsRead, {});
    return { updated };
  }

  @Post(':notificationId/read')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Mark a notification read',
    description: "Idempotent. Another user's notification: 404. Scope `profile:write`.",
  })
  @ApiOkResponse({ type: NotificationResponseDto })
  async markRead(@Param('notificationId') notificationId: string): Promise<NotificationResponseDto> {
    const { notification } = await this.client.call(M.markNotificationRead, { notificationId });
    return { notification: notificationJson(notification) };
  }
}
