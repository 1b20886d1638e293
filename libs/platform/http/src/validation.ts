import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { AppError, ErrorCode } from '@kw/platform-errors';

function flatten(errors: ValidationError[], parent = ''): { field: string; problems: string[] }[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = e.constraints ? [{ field, problems: Object.values(e.constraints) }] : [];
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/**
 * DTO validation at the edge: unknown fields are refused (not silently dropped) so mass
 * assignment is visible, and values are converted to the DTO's types.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const fields = flatten(errors);
      const first = fields[0];
      return new AppError({
        status: 400,
        code: ErrorCode.VALIDATION_FAILED,
        message: first ? `${first.field}: ${first.problems.join('; ')}` : 'Validation failed',
        param: first?.field,
        details: { fields },
      });
    },
  });
}
