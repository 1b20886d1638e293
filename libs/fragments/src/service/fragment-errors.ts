import { AppError, ErrorCode, invalidField, notFound } from '@kw/platform-errors';

/** Error codes of the fragments component (docs/fragments.md). */
export const FragmentErrorCode = {
  INVALID_FRAGMENT_TYPE: 'INVALID_FRAGMENT_TYPE',
  TYPE_IN_USE: 'TYPE_IN_USE',
  TYPE_KEY_EXISTS: 'TYPE_KEY_EXISTS',
  KEY_EXISTS: 'KEY_EXISTS',
  VERSION_CONFLICT: 'VERSION_CONFLICT',
  SECTION_NOT_FOUND: 'SECTION_NOT_FOUND',
  FRAGMENT_LIMIT_REACHED: 'FRAGMENT_LIMIT_REACHED',
} as const;

export const fragmentNotFound = (): AppError => notFound('Fragment');
export const fragmentTypeNotFound = (): AppError => notFound('Fragment type');
export const collectionNotFound = (): AppError => notFound('Collection');

export const invalidFragmentType = (): AppError =>
  new AppError({
    status: 400,
    code: FragmentErrorCode.INVALID_FRAGMENT_TYPE,
    message: 'fragmentTypeId must be a fragment type of the same workspace',
    param: 'fragmentTypeId',
  });

export const typeInUse = (fragmentCount: number): AppError =>
  new AppError({
    status: 409,
    code: FragmentErrorCode.TYPE_IN_USE,
    message: `The fragment type is used by ${fragmentCount} fragment(s)`,
    details: { fragmentCount },
  });

export const typeKeyExists = (): AppError =>
  new AppError({
    status: 409,
    code: FragmentErrorCode.TYPE_KEY_EXISTS,
    message: 'A fragment type with that key exists in the workspace',
    param: 'key',
  });

export const keyExists = (existingId: string): AppError =>
  new AppError({
    status: 409,
    code: FragmentErrorCode.KEY_EXISTS,
    message: 'A fragment with that key exists in the workspace',
    details: { existingId },
    param: 'key',
  });

export const versionConflict = (currentVersion: number): AppError =>
  new AppError({
    status: 409,
    code: FragmentErrorCode.VERSION_CONFLICT,
    message: 'The fragment was changed since that version',
    details: { currentVersion },
  });

export const sectionNotFound = (heading: string): AppError =>
  new AppError({
    status: 400,
    code: FragmentErrorCode.SECTION_NOT_FOUND,
    message: `No section with the heading '${heading}'`,
    details: { heading },
  });

export const fragmentLimitReached = (max: number): AppError =>
  new AppError({
    status: 409,
    code: FragmentErrorCode.FRAGMENT_LIMIT_REACHED,
    message: `The workspace holds the maximum of ${max} fragments`,
  });

export const invalidInput = invalidField;

export const ownersOnly = (): AppError =>
  new AppError({
    status: 403,
    code: ErrorCode.FORBIDDEN,
    message: 'Only workspace owners may delete fragments permanently',
  });
