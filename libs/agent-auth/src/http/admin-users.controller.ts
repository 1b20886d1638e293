import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { IdentityService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { CreateUserDto } from './dto/auth.dto.js';
import { ListUsersQueryDto, toUserDto, UpdateUserDto, UserEnvelopeDto, UserListDto } from './dto/user.dto.js';

const NOT_ADMIN = 'Not a platform administrator, or the credential lacks scope `admin`';

/** Accounts, for platform administrators (docs/authentication.md, "Administering accounts"). */
@ApiTags('Administration')
@ApiForbiddenResponse({ description: NOT_ADMIN })
@Controller('api/admin/users')
export class AdminUsersController {
  constructor(private readonly client: ServiceClient) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create an account',
    description:
      'Platform administrators only (scope `admin`). There is no self-service sign-up. Emails are compared case-insensitively.',
  })
  @ApiCreatedResponse({ type: UserEnvelopeDto })
  @ApiConflictResponse({ description: '`EMAIL_TAKEN`: an account with this email exists' })
  async create(@Body() body: CreateUserDto): Promise<UserEnvelopeDto> {
    const { user } = await this.client.call(IdentityService.method.createUser, body);
    return { user: toUserDto(user) };
  }

  @Get()
  @ApiOperation({
    summary: 'List accounts',
    description:
      'Platform administrators only (scope `admin`). Newest first; `email` matches part of the address, case-insensitively.',
  })
  @ApiOkResponse({ type: UserListDto })
  async list(@Query() query: ListUsersQueryDto): Promise<UserListDto> {
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const { users, totalCount } = await this.client.call(IdentityService.method.listUsers, {
      email: query.email ?? '',
      status: query.status ?? '',
      limit,
      offset,
    });
    return { users: users.map(toUserDto), totalCount, limit, offset };
  }

  @Get(':id')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'Get an account', description: 'Platform administrators only (scope `admin`).' })
  @ApiOkResponse({ type: UserEnvelopeDto })
  @ApiNotFoundResponse({ description: 'No such account' })
  async get(@Param('id') id: string): Promise<UserEnvelopeDto> {
    const { user } = await this.client.call(IdentityService.method.getUser, { id });
    return { user: toUserDto(user) };
  }

  @Patch(':id')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary: 'Disable or re-enable an account',
    description:
      'Platform administrators only (scope `admin`). Disabling stops every credential of the account at once and ends its sessions; re-enabling lets its personal access tokens and agent grants work again (it signs in anew).',
  })
  @ApiOkResponse({ type: UserEnvelopeDto })
  @ApiNotFoundResponse({ description: 'No such account' })
  @ApiConflictResponse({
    description: '`CONFLICT`: your own account; `LAST_ADMIN`: the last active platform administrator',
  })
  async update(@Param('id') id: string, @Body() body: UpdateUserDto): Promise<UserEnvelopeDto> {
    const { user } = await this.client.call(IdentityService.method.setUserStatus, { id, status: body.status });
    return { user: toUserDto(user) };
  }
}
