import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { create } from '@bufbuild/protobuf';
import { EmbedChatService, UserSchema, type AdmitEmbedCallResponse } from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import type { AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode } from '@kw/platform-errors';
import {
  publicBase,
  queryKeyOf,
  QUERY_KEY_PARAM,
  type AuthenticatedCaller,
  type QueryKeyAuthenticator,
} from '@kw/platform-http';
import { hashEmbedKey } from '../../domain/embed-key.js';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { assertChatAllowed } from '../chat-access.js';

/** The header a stateless conversation's id comes back in (readable by the host page's script). */
export const EMBED_SESSION_HEADER = 'x-embed-session-id';
/** The host page's origin, as the widget's frame (same origin as the API) reports it. */
export const EMBED_HOST_ORIGIN_HEADER = 'x-embed-host-origin';

/** The methods a browser sends without Origin when same-origin (Fetch standard). */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

const ADMITTED = Symbol.for('kw.embed.admitted');
const GUARDED = Symbol.for('kw.embed.guarded');
type WithAdmission = FastifyRequest & { [ADMITTED]?: AdmitEmbedCallResponse; [GUARDED]?: true };

/** Whether EmbedKeyGuard saw the request (admitted or refused it): its error needs no second look. */
export function reachedEmbedGuard(request: FastifyRequest): boolean {
  return (request as WithAdmission)[GUARDED] === true;
}

const keyMissing = () =>
  new AppError({
    status: 401,
    code: ErrorCode.EMBED_KEY_INVALID,
    message: `An embed key is required in the "${QUERY_KEY_PARAM}" query parameter`,
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
 * Admits a request made with an embed key (the `key` query parameter, looked up by its
 * SHA-256): the key, the page's origin, and, except for a CORS preflight, who is chatting (the
 * host page's JWT or the key's scoped token). Used by EmbedKeyGuard (/api/v2/embed/*) and by
 * EmbedKeyAuthenticator (the workspace file byte proxy, for the widget's frame).
 */
@Injectable()
export class EmbedRequests {
  constructor(
    private readonly client: ServiceClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async admit(
    request: FastifyRequest,
    options: { preflight?: boolean; filesBridge?: boolean } = {},
  ): Promise<{ admitted: AdmitEmbedCallResponse; origin: string; crossOrigin: boolean }> {
    const key = queryKeyOf(request);
    if (!key) throw keyMissing();
    const origin = this.pageOrigin(request);
    const admitted = await this.client.call(EmbedChatService.method.admitEmbedCall, {
      keyHash: hashEmbedKey(key),
      origin,
      hostToken: options.preflight ? '' : bearerOf(request),
      preflight: options.preflight ?? false,
      filesBridge: options.filesBridge ?? false,
    });
    return { admitted, origin, crossOrigin: origin !== '' && origin === request.headers.origin };
  }

  /**
   * The origin of the page the chat runs on: the request's Origin, or, for the widget's frame
   * (whose requests come from the platform's own origin), the host page's origin it reports.
   * Only the platform's frame can send a same-origin request from a browser, and only the key's
   * allowed origins may frame it (frame-ancestors), so a browser cannot lie here; a program can
   * send any Origin anyway, which is why origins restrict browsers, not callers.
   */
  private pageOrigin(request: FastifyRequest): string {
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : '';
    // A browser sends no Origin on a same-origin GET (or HEAD), but always says where a request
    // comes from in Sec-Fetch-Site, which no page script can set. Any other method always carries
    // Origin from a browser: without it, the request is refused as documented.
    const sameOrigin = origin
      ? origin === new URL(publicBase(this.config, request)).origin
      : SAFE_METHODS.has(request.method) && request.headers['sec-fetch-site'] === 'same-origin';
    if (!sameOrigin) return origin;
    const host = request.headers[EMBED_HOST_ORIGIN_HEADER];
    return typeof host === 'string' ? host : '';
  }
}

/**
 * Admits a request to /api/v2/embed/* (EmbedRequests). The chatting user becomes the request's
 * caller, so every tool call runs with their access. CORS answers name the request's origin only
 * once the key accepted it; nothing is ever allowed for `*`.
 */
@Injectable()
export class EmbedKeyGuard implements CanActivate {
  constructor(private readonly requests: EmbedRequests) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const preflight = request.method === 'OPTIONS';
    (request as WithAdmission)[GUARDED] = true;
    const { admitted, origin, crossOrigin } = await this.requests.admit(request, { preflight });
    if (crossOrigin) {
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

/**
 * The embed key as a credential of the workspace file byte proxy (@AcceptsQueryKey on the files
 * component's routes): what `kwChat.workspaceFiles` in the host page reaches through the frame,
 * only where the configuration exposes workspace files to the parent (403 otherwise).
 */
@Injectable()
export class EmbedKeyAuthenticator implements QueryKeyAuthenticator {
  constructor(private readonly requests: EmbedRequests) {}

  async authenticate(request: FastifyRequest, purpose: string): Promise<AuthenticatedCaller> {
    if (purpose !== 'workspace-files') throw keyMissing();
    const { admitted } = await this.requests.admit(request, { filesBridge: true });
    const auth = admitted.caller!;
    return { auth, user: create(UserSchema, { id: auth.userId }) };
  }
}

/** What EmbedKeyGuard admitted for this request. */
export function admittedEmbed(request: FastifyRequest): AdmitEmbedCallResponse {
  const admitted = (request as WithAdmission)[ADMITTED];
  if (!admitted) throw new Error('EmbedKeyGuard did not run for this route');
  return admitted;
}
