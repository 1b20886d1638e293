import { SetMetadata } from '@nestjs/common';
import type { DescMessage, DescMethodUnary } from '@bufbuild/protobuf';
import type { MethodHandler, ServeOptions } from '../serve.js';

export const HANDLES_METADATA = 'kw:transport:handles';

export interface HandlesMetadata {
  method: DescMethodUnary;
  options: ServeOptions;
}

/**
 * Marks a provider method as the handler of a contract method; TransportExplorer registers it
 * on the transport at application bootstrap. The decorated method's signature is checked
 * against the contract: `(input: MessageShape<I>, context) => MessageInitShape<O>`.
 * For contracts every component serves, the target defaults to the transport's component.
 */
export function Handles<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  options: ServeOptions = {},
) {
  const metadata: HandlesMetadata = { method: method as unknown as DescMethodUnary, options };
  const decorate = SetMetadata(HANDLES_METADATA, metadata);
  return <H extends MethodHandler<I, O>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<H>,
  ): void => {
    decorate(target, key, descriptor);
  };
}
