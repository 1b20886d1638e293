import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EmbedChatService } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { escapeHtml, ifNoneMatchMatches, Public, scriptJson } from '@kw/platform-http';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { EMBED_CHAT_MESSAGE_MAX_CHARS, EMBED_CHAT_MESSAGES_MAX } from '../../../chat-limits.js';
import { hashEmbedKey } from '../../../domain/embed-key.js';
import { FRAME_CSS } from './frame-style.js';

interface Asset {
  body: string;
  etag: string;
  type: string;
}

const ASSET_TYPES: Record<string, string> = {
  'widget.js': 'text/javascript; charset=utf-8',
  'frame.js': 'text/javascript; charset=utf-8',
  'markdown.js': 'text/javascript; charset=utf-8',
  'history-window.js': 'text/javascript; charset=utf-8',
};

const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"`;

/** The browser scripts, compiled next to this file (browser/*.ts); read once, source map comment dropped. */
function loadAsset(name: string): Asset {
  const body =
    name === 'frame.css'
      ? FRAME_CSS
      : readFileSync(new URL(`./browser/${name}`, import.meta.url), 'utf8').replace(
          /\n\/\/# sourceMappingURL=.*$/m,
          '\n',
        );
  return { body, etag: etagOf(body), type: ASSET_TYPES[name] ?? 'text/css; charset=utf-8' };
}

const keyInvalid = () =>
  new AppError({ status: 401, code: ErrorCode.EMBED_KEY_INVALID, message: 'Unknown, revoked or expired embed key' });

/**
 * The embed widget (docs/chat.md#embed-widget): the loader a customer's page includes
 * (/embed/widget.js), and the chat panel it frames (/embed/frame), which only the key's allowed
 * origins may frame (CSP frame-ancestors), with its script, its Markdown renderer and its
 * stylesheet. Static, small, no framework, nothing from another origin.
 */
@ApiTags('Embed widget')
@Public()
@Controller('embed')
export class EmbedWidgetController {
  private readonly assets = new Map<string, Asset>();

  constructor(
    private readonly client: ServiceClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('widget.js')
  @ApiOperation({
    summary: 'The embed widget script',
    description:
      'Include it with `<script src=".../embed/widget.js" data-embed-key="kwek_…" async></script>`; it adds a launcher, the chat frame and `window.kwChat`.',
  })
  @ApiProduces('text/javascript')
  @ApiOkResponse({ description: 'The script (cacheable for 5 minutes, with an ETag)' })
  widget(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.send('widget.js', request, reply);
  }

  @Get('frame.js')
  @ApiExcludeEndpoint()
  frameScript(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.send('frame.js', request, reply);
  }

  @Get('markdown.js')
  @ApiExcludeEndpoint()
  markdown(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.send('markdown.js', request, reply);
  }

  @Get('history-window.js')
  @ApiExcludeEndpoint()
  historyWindow(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.send('history-window.js', request, reply);
  }

  @Get('frame.css')
  @ApiExcludeEndpoint()
  stylesheet(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.send('frame.css', request, reply);
  }

  @Get('frame')
  @ApiOperation({
    summary: 'The chat panel the widget frames',
    description:
      "HTML for the widget's iframe. Only the key's allowed origins may frame it (`Content-Security-Policy: frame-ancestors`); an unknown, revoked or expired key answers 401.",
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The panel' })
  async frame(@Query('key') key: unknown, @Res() reply: FastifyReply): Promise<void> {
    const admitted =
      typeof key === 'string' && key
        ? await this.client
            .call(EmbedChatService.method.admitEmbedCall, {
              keyHash: hashEmbedKey(key),
              frame: true,
            })
            .catch((err: unknown) => {
              if (AppError.isAppError(err) && err.status < 500) return undefined;
              throw err;
            })
        : undefined;
    // One error shape everywhere (JSON), also here: only a misconfigured page sees it.
    if (!admitted) throw keyInvalid();
    void reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store');
    const config = admitted.config!;
    const ancestors = admitted.publicKey ? '*' : admitted.allowedOrigins.join(' ') || "'none'";
    const frameConfig = {
      configId: config.id,
      workspaceId: config.workspaceId,
      name: config.name,
      theme: config.features?.theme || 'auto',
      feedbackMode: config.features?.feedbackMode || 'off',
      stateless: config.stateless,
      exposeFiles: config.features?.exposeWorkspaceFilesToParent ?? false,
      allowedOrigins: admitted.publicKey ? null : admitted.allowedOrigins,
      // What POST /api/v2/embed/chat accepts: a stateless frame trims the history it sends to it.
      limits: {
        messages: EMBED_CHAT_MESSAGES_MAX,
        messageChars: EMBED_CHAT_MESSAGE_MAX_CHARS,
        bodyBytes: this.config.BODY_LIMIT_BYTES,
      },
    };
    const version = (name: string) => encodeURIComponent(this.asset(name).etag.replace(/"/g, ''));
    const html = `<!doctype html>
<html lang="en" data-theme="${escapeHtml(frameConfig.theme)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(config.name || 'Chat')}</title>
<link rel="stylesheet" href="/embed/frame.css?v=${version('frame.css')}">
</head>
<body>
<div id="app">
<header><span id="title"></span><button type="button" id="close" aria-label="Close chat">×</button></header>
<main id="log" role="log" aria-live="polite" aria-label="Conversation"></main>
<form id="composer"><label for="input" class="sr">Your message</label><textarea id="input" rows="2" placeholder="Ask a question"></textarea><button type="submit" id="send">Send</button></form>
</div>
<script type="application/json" id="kw-embed">${scriptJson(frameConfig)}</script>
<script type="module" src="/embed/frame.js?v=${version('frame.js')}"></script>
</body>
</html>`;
    await reply
      .status(200)
      .header(
        'content-security-policy',
        `default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`,
      )
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(html);
  }

  private asset(name: string): Asset {
    let asset = this.assets.get(name);
    if (!asset) {
      asset = loadAsset(name);
      this.assets.set(name, asset);
    }
    return asset;
  }

  private send(name: string, request: FastifyRequest, reply: FastifyReply): void {
    const asset = this.asset(name);
    void reply
      .header('etag', asset.etag)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', 'cross-origin');
    if (ifNoneMatchMatches(request.headers['if-none-match'], asset.etag)) {
      void reply.status(304).send();
      return;
    }
    void reply.status(200).type(asset.type).send(asset.body);
  }
}
