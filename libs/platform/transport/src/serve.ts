import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { requestContext, type RequestContext } from '@kw/platform-context';
import { checkLimits } from './check-limits.js';
import { extractTraceContext, SpanKind, withSpan } from '@kw/platform-tracing';
import { contextFromHeaders } from './context-headers.js';
import { rpcAttributes, spanNameOf } from './service-client.js';
import { subjectOf } from './subject.js';
import type { Subscription, Transport } from './transport.js';

export type MethodHandler<I extends DescMessage, O extends DescMessage> = (
  input: MessageShape<I>,
  context: RequestContext,
) => MessageInitShape<O> | Promise<MessageInitShape<O>>;

export interface ServeOptions {
  /** The component name, for contracts every component serves; see subjectOf. */
  target?: string;
  /** Queue group; defaults to the transport's component. */
  queue?: string;
}

/**
 * Answers one contract method: decodes the input, refuses it when it breaks the field limits
 * of its message (checkLimits: every caller meets the REST edge's limits), restores the caller's request context
 * around the handler (so requestContext.current() and the logs see the caller's request id
 * and auth), and encodes the output. Thrown errors are the transport's to report.
 */
export function serve<I extends DescMessage, O extends DescMessage>(
  transport: Transport,
  method: DescMethodUnary<I, O>,
  handler: MethodHandler<I, O>,
  options: ServeOptions = {},
): Subscription {
  return transport.handle(
    subjectOf(method, options.target),
    async (message) => {
      const context = contextFromHeaders(message.headers);
      let input: MessageShape<I>;
      try {
        input = fromBinary(method.input, message.data);
      } catch {
        throw new AppError({ status: 400, code: ErrorCode.BAD_REQUEST, message: `Malformed ${method.input.typeName}` });
      }
      checkLimits(method.input, input);
      // The server span of the hop, child of the caller's client span (from `traceparent`).
      const attributes = { ...rpcAttributes(method, transport.component), 'kw.request_id': context.requestId };
      const output = await withSpan(
        spanNameOf(method),
        { kind: SpanKind.SERVER, parent: extractTraceContext(message.headers), attributes },
        async () => requestContext.run(context, () => handler(input, context)),
      );
      return { data: toBinary(method.output, create(method.output, output)) };
    },
    { queue: options.queue },
  );
}
