import { invalidField } from '@kw/platform-errors';

/** 400 VALIDATION_FAILED naming one field, as the ValidationPipe would. */
export const invalidListingInput = invalidField;
