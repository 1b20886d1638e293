import { badRequest } from '@kw/platform-errors';
import { FILE_DESCRIPTION_MAX_CHARS } from '../files-limits.js';

/** Checked again here whatever the edge let through: a caller on the bus skips the DTOs. */
export function validDescription(value: string): string {
  if (value.length > FILE_DESCRIPTION_MAX_CHARS) {
    throw badRequest(`description must be at most ${FILE_DESCRIPTION_MAX_CHARS} characters`, { field: 'description' });
  }
  return value;
}

export function validSha256(value: string): string {
  if (!/^[0-9a-f]{64}$/.test(value)) throw badRequest('sha256 must be 64 lowercase hex digits', { field: 'sha256' });
  return value;
}
