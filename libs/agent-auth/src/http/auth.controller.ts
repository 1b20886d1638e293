import { Body, Controller, Get, HttpCode, Post, Req, Res, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdentityService } from '@kw/contracts';
import {
  admittedAuthentication,
  findEdgeAdmission,
  NoStore,
  Public,
  SessionOnly,
  type EdgeAdmission,
} from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import { SignInDto, SignInResponseDto, ValidateTokenResponseDto } from './dto/auth.dto.js';
import { toUserDto } from './dto/user.dto.js';
import { clearSessionCookies, setSessionCookies } from './session-cookies.js';
import { canonicalEmail } from '../domain/accounts/email.js';

@ApiTags('Authentication')
@Controller('api/auth')
export class AuthController implements OnModuleInit {
  private admission?: EdgeAdmission;

  constructor(
    private readonly client: ServiceClient,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    this.admission = findEdgeAdmission(this.moduleRef);
  }

  @Public()
  @Post('sign-in')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Sign in (browser session)',
    description:
      'Sets the `kw_session` cookie (HttpOnly) and the `kw_csrf` cookie. State-changing requests made with ' +
      'the session must send `x-csrf-token` equal to `kw_csrf`. Wrong email or password: 401 with one ' +
      'generic message; repeated failures from one address or for one email: 429 with `Retry-After` ' +
      '(docs/authentication.md).',
  })
  @ApiOkResponse({ type: SignInResponseDto })
  @ApiUnauthorizedResponse({ description: 'The email or password is incorrect' })
  async signIn(
    @Body() body: SignInDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SignInResponseDto> {
    // Wrong passwords count as failed credentials of the address and of the account's email:
    // password guessing is throttled like token guessing, before the password hash is computed.
    const session = await admittedAuthentication(
      this.admission,
      request,
      reply,
      `email:${canonicalEmail(body.email)}`,
      () =>
        this.client.call(IdentityService.method.signIn, {
          email: body.email,
          password: body.password,
          ip: request.ip,
          userAgent: String(request.headers['user-agent'] ?? ''),
        }),
    );
    setSessionCookies(request, reply, session);
    return { user: toUserDto(session.user), expiresAt: session.expiresAt };
  }

  @SessionOnly()
  @Post('sign-out')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Sign out',
    description:
      'Session only (a bearer token gets 403). Revokes the session and clears its cookies. Needs `x-csrf-token`.',
  })
  @ApiNoContentResponse()
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.client.call(IdentityService.method.signOut, {});
    clearSessionCookies(request, reply);
  }

  @Get('validate-token')
  @ApiOperation({
    summary: 'Validate the credential',
    description:
      'Confirms the credential is accepted now and reports what it reaches. The target endpoint still ' +
      'performs its own checks. Invalid, expired or revoked: 401.',
  })
  @ApiOkResponse({ type: ValidateTokenResponseDto })
  @ApiUnauthorizedResponse({ description: 'Missing, invalid, expired or revoked credential' })
  async validateToken(): Promise<ValidateTokenResponseDto> {
    const credential = await this.client.call(IdentityService.method.describeCredential, {});
    const user = toUserDto(credential.user);
    return {
      valid: true,
      credential: {
        kind: credential.kind,
        id: credential.id,
        ...(credential.name !== undefined ? { name: credential.name } : {}),
        ...(credential.expiresAt !== undefined ? { expiresAt: credential.expiresAt } : {}),
        scopes: credential.scopes,
        workspaces: credential.allWorkspaces ? 'all' : credential.workspaceIds,
      },
      user: { id: user.id, email: user.email, displayName: user.displayName },
    };
  }
}
