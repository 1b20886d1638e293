import { badRequest } from '@kw/platform-errors';
import { VISIBILITIES, WORKSPACE_DESCRIPTION_MAX, WORKSPACE_NAME_MAX } from '../workspaces-limits.js';

/**
 * The service re-validates what the HTTP DTOs already checked: other components call the
 * contract directly, without the edge.
 */
export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > WORKSPACE_NAME_MAX)
    throw badRequest(`name must be 1 to ${WORKSPACE_NAME_MAX} characters`);
  return trimmed;
}

export function checkDescription(description: string): string {
  if (description.length > WORKSPACE_DESCRIPTION_MAX)
    throw badRequest(`description must be at most ${WORKSPACE_DESCRIPTION_MAX} characters`);
  return description;
}

export function checkVisibility(visibility: string): 'private' | 'public' {
  if (!(VISIBILITIES as readonly string[]).includes(visibility))
    throw badRequest(`visibility must be one of ${VISIBILITIES.join(', ')}`);
  return visibility as 'private' | 'public';
}
