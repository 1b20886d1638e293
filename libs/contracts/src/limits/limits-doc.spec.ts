import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LIMITS_DOC_BEGIN, LIMITS_DOC_END, LIMITS_DOC_PATH, renderLimitsTable, withLimitsTable } from './doc.js';
import { MESSAGE_LIMITS } from './rules.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

describe('docs/limits.md', () => {
  it('holds the table generated from the registry (else: node scripts/gen-limits-doc.mjs)', () => {
    const doc = readFileSync(path.join(repo, LIMITS_DOC_PATH), 'utf8');
    expect(withLimitsTable(doc)).toBe(doc);
  });

  it('scripts/gen-limits-doc.mjs --check agrees', () => {
    const run = spawnSync(process.execPath, [path.join(repo, 'scripts/gen-limits-doc.mjs'), '--check'], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  });

  it('a stale table is replaced, and text outside the markers is kept', () => {
    const stale = `# Title\n\nintro\n\n${LIMITS_DOC_BEGIN}\n| old |\n${LIMITS_DOC_END}\n\nafter\n`;
    const fresh = withLimitsTable(stale);
    expect(fresh).not.toBe(stale);
    expect(fresh).toBe(`# Title\n\nintro\n\n${LIMITS_DOC_BEGIN}\n${renderLimitsTable()}\n${LIMITS_DOC_END}\n\nafter\n`);
    expect(() => withLimitsTable('# no markers\n')).toThrow(/markers/);
  });

  it('lists one row per rule, naming the message and field', () => {
    const rows = renderLimitsTable().split('\n').slice(2);
    const ruleCount = MESSAGE_LIMITS.reduce((n, m) => n + Object.keys(m.fields).length, 0);
    expect(rows).toHaveLength(ruleCount);
    expect(rows).toContain(
      '| `kw.fragments.v1.CreateFragmentRequest` | `title` | at most 500 characters; not blank (white space only is refused) |',
    );
    expect(rows).toContain(
      '| `kw.fragments.v1.CreateFragmentRequest` | `tags` | at most 50 items; each at most 100 characters |',
    );
  });
});
