import {
  Body,
  type CanActivate,
  Controller,
  type ExecutionContext,
  HttpCode,
  Inject,
  Injectable,
  Post,
  UseGuards,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { EchoService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode, notFound } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';
import { Public } from '@kw/platform-http';
import { APP_CONFIG, EXPECTED_COMPONENTS } from '../tokens.js';
import { EchoRequestDto, EchoResponseDto } from './echo.dto.js';

/**
 * Without DIAGNOSTICS_ENABLED the route answers as a path that does not exist, whatever the body:
 * a guard runs before the body's validation, which would otherwise tell that the route is there.
 */
@Injectable()
class DiagnosticsEnabledGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.config.DIAGNOSTICS_ENABLED) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    throw new AppError({
      status: 404,
      code: ErrorCode.NOT_FOUND,
      message: `No route ${request.method} ${request.url.split('?')[0]}`,
    });
  }
}

/**
 * A message-path check for operators: the gateway sends the text to a component over the
 * transport and returns what the component saw. Exists only with DIAGNOSTICS_ENABLED=true;
 * otherwise it answers exactly like a path that does not exist.
 */
@Public()
@ApiTags('Diagnostics')
@UseGuards(DiagnosticsEnabledGuard)
@Controller('api/diagnostics')
export class DiagnosticsController {
  constructor(
    private readonly client: ServiceClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EXPECTED_COMPONENTS) private readonly components: string[],
  ) {}

  @Post('echo')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Echo through a component',
    description:
      'Only when DIAGNOSTICS_ENABLED=true (404 otherwise). Errors of the component (or 503/504 when it is ' +
      'down or slow) are returned as they would be for any route.',
  })
  @ApiOkResponse({ type: EchoResponseDto })
  async echo(@Body() body: EchoRequestDto): Promise<EchoResponseDto> {
    if (!this.components.includes(body.component)) throw notFound('Component');
    const answer = await this.client.call(
      EchoService.method.echo,
      {
        text: body.text,
        delayMs: body.delayMs ?? 0,
        failWithCode: body.failWithCode ?? '',
        failWithStatus: body.failWithStatus ?? 0,
      },
      { target: body.component },
    );
    return { text: answer.text, requestId: answer.requestId, servedBy: answer.servedBy };
  }
}
