/**
 * A comma-list query parameter (`tags=a,b`, `types=note,decision`): the items trimmed (as tags
 * are on write), empty ones dropped. An item may itself hold a comma: `\,` is a literal comma
 * and `\\` a literal backslash; any other backslash is kept as written (docs/fragments.md).
 */
export function commaList(value: string | undefined): string[] {
  if (value === undefined) return [];
  const tags: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    const next = value[i + 1];
    if (c === '\\' && (next === ',' || next === '\\')) {
      current += next;
      i++;
    } else if (c === ',') {
      tags.push(current);
      current = '';
    } else current += c;
  }
  tags.push(current);
  return tags.map((t) => t.trim()).filter((t) => t !== '');
}
