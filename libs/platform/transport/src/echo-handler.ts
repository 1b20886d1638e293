import { EchoService } from '@kw/contracts';
import { AppError } from '@kw/platform-errors';
import { serve, type MethodHandler } from './serve.js';
import type { Subscription, Transport } from './transport.js';

type Echo = typeof EchoService.method.echo;

/** Upper bound of delay_ms: the contract may be enabled on a running system for diagnostics. */
export const MAX_ECHO_DELAY_MS = 60_000;

/** Sentinel fail_with_code that makes the handler throw a plain Error. */
export const ECHO_UNEXPECTED = 'UNEXPECTED';

/**
 * The test and diagnostic handler of kw.platform.v1.EchoService (see echo.proto): answers
 * with what it received and the request context it saw, after sleeping or failing on demand.
 */
export function echoHandler(servedBy: string): MethodHandler<Echo['input'], Echo['output']> {
  return async (input, context) => {
    if (input.delayMs > 0)
      await new Promise((resolve) => setTimeout(resolve, Math.min(input.delayMs, MAX_ECHO_DELAY_MS)));
    if (input.failWithCode === ECHO_UNEXPECTED) throw new Error(`echo failure asked for: ${input.text}`);
    if (input.failWithCode) {
      throw new AppError({
        status: input.failWithStatus || 400,
        code: input.failWithCode,
        message: `Echo failed as asked: ${input.text}`,
      });
    }
    return { text: input.text, requestId: context.requestId, auth: context.auth, servedBy };
  };
}

/** Serves EchoService for the transport's component (or `target`). */
export function serveEcho(transport: Transport, options: { servedBy?: string; target?: string } = {}): Subscription {
  return serve(transport, EchoService.method.echo, echoHandler(options.servedBy ?? transport.component), {
    target: options.target ?? transport.component,
  });
}
