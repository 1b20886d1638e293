import type { DescService, MessageShape } from '@bufbuild/protobuf';

/**
 * The input message of one method of a contract service, for a handler's signature:
 * `async list(input: RequestOf<typeof FragmentsService, 'listCollections'>, context: RequestContext)`.
 * `@Handles` checks the same signature against the contract, so the two cannot drift.
 */
export type RequestOf<S extends DescService, K extends keyof S['method']> = MessageShape<S['method'][K]['input']>;
