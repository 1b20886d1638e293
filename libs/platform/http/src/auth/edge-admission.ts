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
}

/** Provided by the component that owns the edge's policies (platform-runtime's gateway). */
export const EDGE_ADMISSION = Symbol('EDGE_ADMISSION');
