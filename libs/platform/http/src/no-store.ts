import { applyDecorators, Header } from '@nestjs/common';

/**
 * The answer carries a secret (a token, a client secret, a session): no cache, shared or the
 * browser's, may keep it (RFC 6749 §5.1 asks the same of token answers; `Pragma` for HTTP/1.0
 * caches). Set before the handler runs, so refusals carry it too.
 */
export const NoStore = (): MethodDecorator =>
  applyDecorators(Header('cache-control', 'no-store'), Header('pragma', 'no-cache'));
