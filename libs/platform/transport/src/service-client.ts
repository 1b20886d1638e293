import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import { requestContext } from '@kw/platform-context';
import { injectTraceHeaders, SpanKind, withSpan } from '@kw/platform-tracing';
import { contextToHeaders } from './context-headers.js';
import { subjectOf } from './subject.js';
import type { Transport } from './transport.js';

export interface CallOptions {
  /** The component to ask, for contracts every component serves (HealthService). */
  target?: string;
  timeoutMs?: number;
}

export interface ServiceClientOptions {
  /** Default time a call waits for its reply. */
  timeoutMs?: number;
}

export const DEFAULT_CALL_TIMEOUT_MS = 10_000;

/**
 * Calls another component through a generated method descriptor, e.g.
 * `client.call(HealthService.method.check, {}, { target: 'search' })`: the input and output
 * types come from the contract, the subject from the method. The caller's request context
 * (request id, auth) travels in headers; errors arrive as the AppError the handler threw.
 */
export class ServiceClient {
  private readonly timeoutMs: number;

  constructor(
    private readonly transport: Transport,
    options: ServiceClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  async call<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    input: MessageInitShape<I>,
    options: CallOptions = {},
  ): Promise<MessageShape<O>> {
    const subject = subjectOf(method, options.target);
    const service = options.target ?? subject.split('.')[0];
    // The client span of the hop (no span while tracing is off); its context travels in the
    // headers next to the request id, whichever transport carries them.
    return withSpan(
      spanNameOf(method),
      { kind: SpanKind.CLIENT, attributes: rpcAttributes(method, service) },
      async () => {
        const reply = await this.transport.request(subject, toBinary(method.input, create(method.input, input)), {
          headers: injectTraceHeaders(contextToHeaders(requestContext.current())),
          timeoutMs: options.timeoutMs ?? this.timeoutMs,
          service,
        });
        return fromBinary(method.output, reply.data);
      },
    );
  }
}

/** `kw.fragments.v1.FragmentsService/Create`: the span name of a call, on both sides of the hop. */
export function spanNameOf(method: DescMethodUnary): string {
  return `${method.parent.typeName}/${method.name}`;
}

export function rpcAttributes(method: DescMethodUnary, component: string) {
  return {
    'rpc.system': 'kw-transport',
    'rpc.service': method.parent.typeName,
    'rpc.method': method.name,
    'kw.component': component,
  };
}
