import { describe, expect, it } from 'vitest';
import { rewriteChangesNothing, type RewritableFragment, type Rewrite } from './rewrite-changes-nothing.js';

const row: RewritableFragment = {
  title: 'Runbook',
  content: 'Restart the consumer.',
  fragmentTypeId: 'type-1',
  summary: 'Written by enrichment.',
  tags: ['ops', 'billing', 'queue'],
};
const same: Rewrite = {
  title: 'Runbook',
  content: 'Restart the consumer.',
  fragmentTypeId: 'type-1',
  tags: ['ops', 'billing', 'queue'],
  enhanceTags: false,
};

describe('rewriteChangesNothing', () => {
  it('holds for the same text, type and tags', () => {
    expect(rewriteChangesNothing(row, same)).toBe(true);
  });

  it('fails when the title, content or type would change', () => {
    expect(rewriteChangesNothing(row, { ...same, title: 'Runbook 2' })).toBe(false);
    expect(rewriteChangesNothing(row, { ...same, content: 'Restart it.' })).toBe(false);
    expect(rewriteChangesNothing(row, { ...same, fragmentTypeId: 'type-2' })).toBe(false);
  });

  it('ignores a summary left to enrichment, and compares a given one', () => {
    for (const summary of [undefined, null, '', '  '])
      expect(rewriteChangesNothing(row, { ...same, summary }), String(summary)).toBe(true);
    expect(rewriteChangesNothing(row, { ...same, summary: 'Written by enrichment.' })).toBe(true);
    expect(rewriteChangesNothing(row, { ...same, summary: 'Another summary.' })).toBe(false);
  });

  it('compares given tags as the service stores them: a set, trimmed, without blanks', () => {
    expect(rewriteChangesNothing(row, { ...same, tags: ['queue', ' ops', 'billing', 'ops', ''] })).toBe(true);
    expect(rewriteChangesNothing(row, { ...same, tags: ['ops', 'billing'] })).toBe(false);
    expect(rewriteChangesNothing(row, { ...same, tags: ['ops', 'billing', 'queue', 'new'] })).toBe(false);
    expect(rewriteChangesNothing(row, { ...same, tags: undefined })).toBe(true);
  });

  it('lets enrichment have added tags when the rewrite asks for them to be enhanced', () => {
    expect(rewriteChangesNothing(row, { ...same, tags: ['ops'], enhanceTags: true })).toBe(true);
    expect(rewriteChangesNothing(row, { ...same, tags: ['ops', 'missing'], enhanceTags: true })).toBe(false);
  });
});
