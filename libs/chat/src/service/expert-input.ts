import { invalidField as invalid } from '@kw/platform-errors';
import { findAssignableTool } from '@kw/platform-agent-tools';

export function validExpertName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalid('name', 'must not be empty');
  return trimmed;
}

/** Tool ids of the agent tool registry, each once; an unknown id is refused, naming it. */
export function validTools(ids: string[]): string[] {
  const unknown = ids.find((id) => !findAssignableTool(id));
  if (unknown !== undefined) {
    throw invalid('expertConfig.enabledTools', `"${unknown}" is not a tool (GET /api/v2/experts/tools lists them)`);
  }
  return [...new Set(ids)];
}

/** Keywords are matched case-insensitively: stored trimmed and lower-cased, empty ones dropped, each once. */
export function validKeywords(keywords: string[]): string[] {
  return [...new Set(keywords.map((k) => k.trim().toLowerCase()).filter(Boolean))];
}
