import { ACTIONS, ACTION_DEFINITIONS, ALL_SCOPES, isWorkspaceAction } from './actions.js';
import { roleAllows } from './effective-permissions.js';
import { CAPABILITIES, CAPABILITY_NAMES, relationHas } from './permission-matrix.js';
import { RELATIONS } from './roles.js';

/** Markdown tables generated from the policy data; the README embeds them and a test keeps them equal. */

const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
const table = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');

export function renderScopeTable(): string {
  const rows = ACTIONS.map((a) => {
    const need = ACTION_DEFINITIONS[a].needs;
    const kind = need === 'account' ? 'account' : need === 'platformAdmin' ? 'platform admin' : 'workspace';
    return [`\`${a}\``, kind, ACTION_DEFINITIONS[a].description];
  });
  return table(
    ['scope', 'applies to', 'allows'],
    [[`\`${ALL_SCOPES}\``, 'all', 'Every action, including ones added later'], ...rows],
  );
}

export function renderCapabilityMatrix(): string {
  const rows = CAPABILITY_NAMES.map((c) => [
    c,
    CAPABILITIES[c],
    ...RELATIONS.map((r) => (relationHas(r, c) ? 'yes' : '-')),
  ]);
  return table(['capability', 'meaning', ...RELATIONS], rows);
}

/** Workspace actions × relations: `yes`, `own` (only on content the caller created) or `-`. */
export function renderActionMatrix(): string {
  const rows = ACTIONS.filter((a) => isWorkspaceAction(a)).map((a) => [
    `\`${a}\``,
    ...RELATIONS.map((r) => (roleAllows(r, a, false) ? 'yes' : roleAllows(r, a, true) ? 'own' : '-')),
  ]);
  return table(['action', ...RELATIONS], rows);
}
