import { Body, Controller, Delete, HttpCode, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebSearchAccessService, type AuthContext } from '@kw/contracts';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { BearerOnly, CurrentAuth } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import type { WebSearchProvider } from '@kw/platform-web-search';
import { WEB_SEARCH_RESULTS_DEFAULT } from '../chat-limits.js';
import { assertChatAllowed } from './chat-access.js';
import { clientAbortSignal, unlessClientGone } from './completions/client-abort.js';
import { WebSearchRequestDto, WebSearchResponseDto } from './dto/web-search.dto.js';
import { WEB_SEARCH_PROVIDER } from './web-search.provider.js';
import { UsageRecorder } from './models/usage-recorder.js';

const noAccess = () =>
  new AppError({
    status: 403,
    code: ErrorCode.WEB_SEARCH_ACCESS_REQUIRED,
    message: 'Web search needs web-search access on your account (granted by an administrator)',
  });

const notConfigured = () =>
  new AppError({
    status: 502,
    code: ErrorCode.UPSTREAM_ERROR,
    message: 'No web search provider is configured on this deployment (WEB_SEARCH_PROVIDER)',
  });

@ApiTags('OpenAI-compatible')
@BearerOnly()
@Controller('api/v1/web')
export class WebSearchController {
  constructor(
    private readonly client: ServiceClient,
    @Inject(WEB_SEARCH_PROVIDER) private readonly provider: WebSearchProvider | undefined,
    private readonly usage: UsageRecorder,
  ) {}

  @Post('search')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Search the web',
    description:
      'Needs web-search access on the account (403 `web_search_access_required` without). Provider failures answer 502.',
  })
  @ApiOkResponse({ type: WebSearchResponseDto })
  @ApiForbiddenResponse({ description: 'No web-search access' })
  async search(
    @Body() body: WebSearchRequestDto,
    @CurrentAuth() auth: AuthContext,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebSearchResponseDto> {
    assertChatAllowed(auth);
    const { allowed } = await this.client.call(WebSearchAccessService.method.checkAccess, {});
    if (!allowed) throw noAccess();
    if (!this.provider) throw notConfigured();
    const signal = clientAbortSignal(request, reply);
    const started = performance.now();
    const record = (status: 'ok' | 'upstream_error' | 'cancelled') =>
      this.usage.record({
        credential: 'operator',
        model: this.provider!.id,
        provider: this.provider!.id,
        kind: 'web_search',
        inputTokens: 0,
        outputTokens: 0,
        images: 0,
        searches: status === 'ok' ? 1 : 0,
        latencyMs: Math.round(performance.now() - started),
        status,
      });
    const results = await this.provider
      .search(
        {
          query: body.query,
          numResults: body.num_results ?? WEB_SEARCH_RESULTS_DEFAULT,
          type: body.type ?? 'auto',
          includeText: body.include_text ?? false,
        },
        { signal },
      )
      .catch((err: unknown) => {
        record(signal.aborted ? 'cancelled' : 'upstream_error');
        return unlessClientGone(signal)(err);
      });
    record('ok');
    return {
      object: 'list',
      provider: this.provider.id,
      data: results.map((r) => ({
        title: r.title,
        url: r.url,
        ...(r.snippet !== undefined ? { snippet: r.snippet } : {}),
        ...(r.text !== undefined ? { text: r.text } : {}),
        ...(r.publishedDate !== undefined ? { published_date: r.publishedDate } : {}),
        ...(r.score !== undefined ? { score: r.score } : {}),
      })),
    };
  }
}

/** An administrator's grant of web search to one account, besides a plan's entitlement (scope `admin`). */
@ApiTags('Administration')
@Controller('api/admin/users')
export class WebSearchGrantsController {
  constructor(private readonly client: ServiceClient) {}

  @Put(':userId/web-search')
  @HttpCode(204)
  @ApiOperation({ summary: 'Grant web-search access to an account', description: 'Platform administrators only.' })
  @ApiNoContentResponse({ description: 'Granted (idempotent)' })
  async grant(@Param('userId') userId: string): Promise<void> {
    await this.client.call(WebSearchAccessService.method.grantAccess, { userId });
  }

  @Delete(':userId/web-search')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke web-search access', description: 'Platform administrators only.' })
  @ApiNoContentResponse({ description: 'Revoked (idempotent)' })
  async revoke(@Param('userId') userId: string): Promise<void> {
    await this.client.call(WebSearchAccessService.method.revokeAccess, { userId });
  }
}
