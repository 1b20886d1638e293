import { AppError, ErrorCode } from '@kw/platform-errors';

/** 400 VALIDATION_FAILED naming one field, as the ValidationPipe would. */
export const invalidListingInput = (field: string, problem: string): AppError =>
  new AppError({
    status: 400,
    code: ErrorCode.VALIDATION_FAILED,
    message: `${field}: ${problem}`,
    details: { fields: [{ field, problems: [problem] }] },
    param: field,
  });
