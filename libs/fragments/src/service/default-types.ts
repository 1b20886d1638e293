import type { FragmentTypesRepository } from '../persistence/fragment-types.repository.js';

/** The types every workspace starts with (docs/fragments.md lists them). */
export const DEFAULT_FRAGMENT_TYPES = [
  { key: 'note', name: 'Note', description: 'General knowledge, observations and notes' },
  { key: 'decision', name: 'Decision', description: 'A decision, its context and its consequences' },
  { key: 'meeting', name: 'Meeting', description: 'Meeting notes and outcomes' },
  { key: 'reference', name: 'Reference', description: 'Documentation, links and reference material' },
  { key: 'howto', name: 'How-to', description: 'Step-by-step instructions' },
] as const;

/**
 * Creates the default types of a workspace on its first use in the data plane (workspaces
 * live in the control plane, so there is no creation event to hook). Idempotent under
 * concurrency through the unique (workspace_id, key). A workspace left with no type at
 * all gets the defaults again.
 */
export async function ensureDefaultTypes(types: FragmentTypesRepository, workspaceId: string): Promise<void> {
  await types.createDefaultsIfNone(workspaceId, DEFAULT_FRAGMENT_TYPES);
}
