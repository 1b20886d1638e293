import { charCount } from '@kw/contracts';
import { badRequest, invalidField } from '@kw/platform-errors';
import { VISIBILITIES, WORKSPACE_DESCRIPTION_MAX, WORKSPACE_NAME_MAX } from '../workspaces-limits.js';

/**
 * The service re-validates what the HTTP DTOs already checked: other components call the
 * contract directly, without the edge. Lengths are characters as the DTOs and the contract
 * limits count them (`charCount`: a surrogate pair is one), and a refusal names the field
 * in the edge's 400 VALIDATION_FAILED shape.
 */
export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw invalidField('name', 'name must not be blank');
  if (charCount(trimmed) > WORKSPACE_NAME_MAX)
    throw invalidField('name', `name must be shorter than or equal to ${WORKSPACE_NAME_MAX} characters`);
  return trimmed;
}

export function checkDescription(description: string): string {
  if (charCount(description) > WORKSPACE_DESCRIPTION_MAX)
    throw invalidField(
      'description',
      `description must be shorter than or equal to ${WORKSPACE_DESCRIPTION_MAX} characters`,
    );
  return description;
}

export function checkVisibility(visibility: string): 'private' | 'public' {
  if (!(VISIBILITIES as readonly string[]).includes(visibility))
    throw badRequest(`visibility must be one of ${VISIBILITIES.join(', ')}`);
  return visibility as 'private' | 'public';
}
