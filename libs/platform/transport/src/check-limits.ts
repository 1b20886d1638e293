import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { limitViolations } from '@kw/contracts';
import { AppError, ErrorCode } from '@kw/platform-errors';

/**
 * Refuses a decoded message that breaks the field limits of its contract (@kw/contracts
 * MESSAGE_LIMITS) with the HTTP edge's validation answer: 400 VALIDATION_FAILED, the first
 * field and its problems as the message, that field as `param`, every refused field in
 * `details.fields`. A message without limits passes.
 */
export function checkLimits<S extends DescMessage>(schema: S, input: MessageShape<S>): void {
  const fields = limitViolations(schema.typeName, input);
  const first = fields[0];
  if (!first) return;
  throw new AppError({
    status: 400,
    code: ErrorCode.VALIDATION_FAILED,
    message: `${first.field}: ${first.problems.join('; ')}`,
    param: first.field,
    details: { fields },
  });
}
