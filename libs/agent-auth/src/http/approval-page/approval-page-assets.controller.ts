import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchMatches, Public } from '@kw/platform-http';
import { approvalPageScript, approvalPageStyle } from './approval-page.js';

/** The approval page's script and stylesheet (same origin: the page's CSP allows nothing else). */
@Public()
@Controller('agent')
export class ApprovalPageAssetsController {
  @Get('approval-page.js')
  @ApiExcludeEndpoint()
  script(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const asset = approvalPageScript();
    void reply
      .header('etag', asset.etag)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff');
    if (ifNoneMatchMatches(request.headers['if-none-match'], asset.etag)) {
      void reply.status(304).send();
      return;
    }
    void reply.status(200).type('text/javascript; charset=utf-8').send(asset.body);
  }

  @Get('approval-page.css')
  @ApiExcludeEndpoint()
  style(@Res() reply: FastifyReply): void {
    void reply
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .status(200)
      .type('text/css; charset=utf-8')
      .send(approvalPageStyle());
  }
}
