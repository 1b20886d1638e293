import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from './frontmatter.js';

describe('frontmatter', () => {
  it('parses a YAML mapping at the start of the content', () => {
    expect(parseFrontmatter('---\ntitle: Hi\nn: 2\nlist: [a]\n---\nbody')).toEqual({ title: 'Hi', n: 2, list: ['a'] });
    expect(parseFrontmatter('---\nwhen: 2024-01-01\n---\n')).toEqual({ when: '2024-01-01' });
  });

  it('gives null for no, invalid or non-mapping frontmatter', () => {
    expect(parseFrontmatter('body only')).toBeNull();
    expect(parseFrontmatter('text\n---\na: 1\n---\n')).toBeNull();
    expect(parseFrontmatter('---\n: [\n---\n')).toBeNull();
    expect(parseFrontmatter('---\n- a\n- b\n---\n')).toBeNull();
    expect(parseFrontmatter('---\njust text\n---\n')).toBeNull();
  });
});
