import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '@kw/contracts';

/**
 * What is known about the caller of the current unit of work (an HTTP request, or a message
 * received from another service). AuthContext is the generated `kw.platform.v1.AuthContext`
 * (proto/kw/platform/v1/auth_context.proto): the transport copies it into message headers
 * and restores it on the receiving side, so logs and authorization see the same values in
 * every process. Build one with `create(AuthContextSchema, {...})`.
 */
export type { AuthContext };

export interface RequestContext {
  requestId: string;
  auth?: AuthContext;
  /**
   * Set in-process only, by the fragments component's import job of a workspace moving to this
   * plane (never read from a request or a message): its writes pass the workspace gate.
   */
  moveImportOf?: string;
  /**
   * When the caller stops waiting for the answer, in epoch milliseconds of this process's
   * clock (its timeout, plus the transport's grace for clock skew); absent for work nobody
   * awaits with a deadline. From a message's kw-deadline (@kw/platform-transport).
   */
  deadline?: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const requestContext = {
  run<T>(ctx: RequestContext, fn: () => T): T {
    return storage.run(ctx, fn);
  },
  current(): RequestContext | undefined {
    return storage.getStore();
  },
  requestId(): string | undefined {
    return storage.getStore()?.requestId;
  },
};

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a caller-supplied request id only if it is short and harmless to log. */
export function acceptOrCreateRequestId(candidate: unknown): string {
  if (typeof candidate === 'string' && REQUEST_ID_PATTERN.test(candidate)) return candidate;
  return randomUUID();
}
