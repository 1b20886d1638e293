import { createHash } from 'node:crypto';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EmbedChatService, type AdmitEmbedCallResponse } from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';
import { assertChatAllowed } from '../chat-access.js';

/** The query parameter that carries the embed key (docs/chat.md#embed-chat). */
export const EMBED_KEY_PARAM = 'key';
/** The header a stateless conversation's id comes back in (readable by the host page's script). */
export const EMBED_SESSION_HEADER = 'x-embed-session-id';

const ADMITTED = Symbol.for('kw.embed.admitted');
type WithAdmission = FastifyRequest & { [ADMITTED]?: AdmitEmbedCallResponse };

const keyMissing = () =>
  new AppError({
    status: 401,
    code: ErrorCode.EMBED_KEY_INVALID,
    message: `An embed key is required in the "${EMBED_KEY_PARAM}" query parameter`,
  });

function bearerOf(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined) return '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    throw new AppError({
      status: 401,
      code: ErrorCode.UNAUTHENTICATED,
      message: "The Authorization header must be 'Bearer <the host page's user token>'",
    });
  }
  return match[1];
}

/**
 * Admits a request to /api/v2/embed/*: the key of the `key` query parameter (as its SHA-256),
 * the Origin, and, except for a CORS preflight, who is chatting (the host page's JWT or the key's
 * scoped token). The chatting user becomes the request's caller, so every tool call runs with
 * their access. CORS answers name the request's origin only once the key accepted it; nothing
 * is ever allowed for `*` on a non-public key.
 */
@Injectable()
export class EmbedKeyGuard implements CanActivate {
  constructor(private readonly client: ServiceClient) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const key = (request.query as Record<string, unknown> | undefined)?.[EMBED_KEY_PARAM];
    if (typeof key !== 'string' || !key) throw keyMissing();
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : '';
    const preflight = request.method === 'OPTIONS';
    const admitted = await this.client.call(EmbedChatService.method.admitEmbedCall, {
      keyHash: createHash('sha256').update(key).digest('hex'),
      origin,
      hostToken: preflight ? '' : bearerOf(request),
      preflight,
    });
    if (origin) {
      void reply.headers({
        'access-control-allow-origin': origin,
        vary: 'Origin',
        'access-control-expose-headers': EMBED_SESSION_HEADER,
      });
    }
    if (!preflight) {
      assertChatAllowed(admitted.caller!);
      const current = requestContext.current();
      if (current) current.auth = admitted.caller;
    }
    (request as WithAdmission)[ADMITTED] = admitted;
    return true;
  }
}

/** What EmbedKeyGuard admitted for this request. */
export function admittedEmbed(request: FastifyRequest): AdmitEmbedCallResponse {
  const admitted = (request as WithAdmission)[ADMITTED];
  if (!admitted) throw new Error('EmbedKeyGuard did not run for this route');
  return admitted;
}
