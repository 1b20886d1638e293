import { describe, expect, it } from 'vitest';
import { applyOperations, replaceSection } from './patch-operations.js';

describe('patch operations', () => {
  it('appends on a new line and prepends after the frontmatter', () => {
    expect(applyOperations('a', [{ op: 'append', text: 'b' }])).toBe('a\nb');
    expect(applyOperations('a\n', [{ op: 'append', text: 'b' }])).toBe('a\nb');
    expect(applyOperations('---\nx: 1\n---\nbody', [{ op: 'prepend', text: 'top' }])).toBe('---\nx: 1\n---\ntop\nbody');
    expect(applyOperations('body', [{ op: 'prepend', text: 'top' }])).toBe('top\nbody');
  });

  it('keeps a frontmatter block that ends the content without a newline intact', () => {
    const only = '---\ntitle: x\n---';
    expect(applyOperations(only, [{ op: 'prepend', text: 'TOP' }])).toBe('---\ntitle: x\n---\nTOP\n');
    expect(applyOperations(`${only}  `, [{ op: 'prepend', text: 'TOP' }])).toBe('---\ntitle: x\n---  \nTOP\n');
    expect(applyOperations('---\r\ntitle: x\r\n---', [{ op: 'prepend', text: 'TOP' }])).toBe(
      '---\r\ntitle: x\r\n---\r\nTOP\n',
    );
    expect(applyOperations(only, [{ op: 'append', text: 'END' }])).toBe('---\ntitle: x\n---\nEND');
    expect(applyOperations('', [{ op: 'prepend', text: 'TOP' }])).toBe('TOP\n');
  });

  it('replaces a section up to the next heading of the same or a higher level', () => {
    const doc = '# A\nintro\n## B\nold\n### B1\nnested\n## C\nkeep\n';
    expect(replaceSection(doc, 'B', 'new')).toBe('# A\nintro\n## B\nnew\n\n## C\nkeep\n');
    expect(replaceSection(doc, '## C', 'last')).toBe('# A\nintro\n## B\nold\n### B1\nnested\n## C\nlast\n');
    expect(replaceSection(doc, 'B1', 'x')).toBe('# A\nintro\n## B\nold\n### B1\nx\n\n## C\nkeep\n');
  });

  it('ignores headings in code fences and refuses unknown headings', () => {
    const doc = '## Real\n```\n## Fake\n```\n## Next\n';
    expect(() => replaceSection(doc, 'Fake', 'x')).toThrow(
      expect.objectContaining({ status: 400, code: 'SECTION_NOT_FOUND' }),
    );
    expect(replaceSection(doc, 'Real', 'x')).toBe('## Real\nx\n\n## Next\n');
  });
});
