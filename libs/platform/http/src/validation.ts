import { HttpException, ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { AppError, ErrorCode } from '@kw/platform-errors';

const REQUIRED = 'is required';

function flatten(errors: ValidationError[], parent = ''): { field: string; problems: string[] }[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    // A field that is absent fails every rule it has ("must be a UUID"): say what is wrong instead.
    // (Optional fields are skipped when absent, so an absent field here is a required one.)
    const problems = e.value === undefined && e.constraints ? [REQUIRED] : problemsOf(e.constraints ?? {});
    const own = e.constraints ? [{ field, problems }] : [];
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/** class-validator's rules that check a value's type. */
const TYPE_RULES = new Set(['isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject']);

/**
 * A value of the wrong type fails every rule of its field ("must be shorter than 63 characters;
 * must be a string" for a number): then only its type is named, the rest cannot apply yet.
 */
function problemsOf(constraints: Record<string, string>): string[] {
  const typeProblems = Object.entries(constraints).filter(([rule]) => TYPE_RULES.has(rule));
  return (typeProblems.length > 0 ? typeProblems : Object.entries(constraints)).map(([, problem]) => problem);
}

/**
 * A validator that throws on hostile input (validator.js's isEmail throws URIError on text it
 * cannot encode) answers 400 like a refused value, never 500: validation cannot fail the server.
 */
class SafeValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      if (AppError.isAppError(err) || err instanceof HttpException) throw err;
      const field = metadata.data ?? metadata.type;
      throw new AppError({
        status: 400,
        code: ErrorCode.VALIDATION_FAILED,
        message: `${field}: could not be validated`,
        param: field,
        details: { fields: [{ field, problems: ['could not be validated'] }] },
      });
    }
  }
}

/**
 * DTO validation at the edge: unknown fields are refused (not silently dropped) so mass
 * assignment is visible, and values are converted to the DTO's types.
 */
export function createValidationPipe(): ValidationPipe {
  return new SafeValidationPipe({
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

const itemPipe = createValidationPipe();

/**
 * One value checked against a DTO class exactly as the edge checks a body: for lists whose
 * items are judged one by one (bulk writes answer per item). Throws the same 400.
 */
export async function validateAgainst<T extends object>(metatype: new () => T, value: unknown): Promise<T> {
  return (await itemPipe.transform(value, { type: 'body', metatype })) as T;
}
