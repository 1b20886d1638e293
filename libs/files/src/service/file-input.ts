import { invalidField } from '@kw/platform-errors';
import { FILE_DESCRIPTION_MAX_CHARS, codePoints } from '../files-limits.js';

/** Checked again here whatever the edge let through: a caller on the bus skips the DTOs. */
export function validDescription(value: string): string {
  if (codePoints(value) > FILE_DESCRIPTION_MAX_CHARS) {
    throw invalidField('description', `must be at most ${FILE_DESCRIPTION_MAX_CHARS} characters`);
  }
  return value;
}

export function validSha256(value: string): string {
  if (!/^[0-9a-f]{64}$/.test(value)) throw invalidField('sha256', 'must be 64 lowercase hex digits');
  return value;
}
