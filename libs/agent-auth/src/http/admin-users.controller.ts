import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiForbiddenResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { IdentityService } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';
import { CreateUserDto } from './dto/auth.dto.js';
import { toUserDto, UserEnvelopeDto } from './dto/user.dto.js';

@ApiTags('Administration')
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
  @ApiForbiddenResponse({ description: 'Not a platform administrator, or the credential lacks scope `admin`' })
  @ApiConflictResponse({ description: '`EMAIL_TAKEN`: an account with this email exists' })
  async create(@Body() body: CreateUserDto): Promise<UserEnvelopeDto> {
    const { user } = await this.client.call(IdentityService.method.createUser, body);
    return { user: toUserDto(user) };
  }
}
