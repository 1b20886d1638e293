import type { ModuleRef } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * What the edge checks on every request once the caller is known (the gateway's rate limits).
 * The AuthGuard runs it right after authentication, so there is one guard per request and no
 * interceptor: a Nest interceptor wraps every handler in an rxjs pipeline, which cost the
 * gateway half its throughput on trivial routes (bench/README.md).
 */
export interface EdgeAdmission {
  /** Resolves to let the request through; throws the error to answer (429) otherwise. */
  admit(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * Runs one authentication attempt under the failed-credential throttle: refuses at once
   * (429) an address or credential that failed too often, counts a refusal of the attempt,
   * and answers 429 instead of its 401 once a limit is passed. `credential` is what the caller
   * presented (undefined when nothing was: then the request counts as an anonymous one).
   */
  authenticate<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    credential: string | undefined,
    attempt: () => Promise<T>,
  ): Promise<T>;
}

/** Authenticates through the admission when the process has one (the gateway), directly otherwise. */
export function admittedAuthentication<T>(
  admission: EdgeAdmission | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  credential: string | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  return admission ? admission.authenticate(request, reply, credential, attempt) : attempt();
}

/** Provided by the component that owns the edge's policies (platform-runtime's gateway). */
export const EDGE_ADMISSION = Symbol('EDGE_ADMISSION');

/** The process's admission, provided by another module (the gateway component) when the process has an edge. */
export function findEdgeAdmission(moduleRef: ModuleRef): EdgeAdmission | undefined {
  try {
    return moduleRef.get<EdgeAdmission>(EDGE_ADMISSION, { strict: false });
  } catch {
    return undefined;
  }
}
