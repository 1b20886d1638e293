import type { PipeTransform } from '@nestjs/common';
import { AppError, ErrorCode } from '@kw/platform-errors';

/**
 * For a route that takes no body fields: an empty or absent body passes; any field is refused
 * like an unknown field of a DTO (400 VALIDATION_FAILED naming it), never ignored. (A DTO class
 * without fields cannot say this: the validation pipe refuses every body of such a class.)
 */
export class NoBodyFieldsPipe implements PipeTransform {
  transform(value: unknown): Record<string, never> {
    if (value === undefined || value === null) return {};
    const fields =
      typeof value === 'object' && !Array.isArray(value)
        ? Object.keys(value).map((field) => ({ field, problems: [`property ${field} should not exist`] }))
        : [{ field: 'body', problems: ['must be an empty object: this route takes no fields'] }];
    if (fields.length === 0) return {};
    const [first] = fields;
    throw new AppError({
      status: 400,
      code: ErrorCode.VALIDATION_FAILED,
      message: `${first!.field}: ${first!.problems[0]}`,
      param: first!.field,
      details: { fields },
    });
  }
}
