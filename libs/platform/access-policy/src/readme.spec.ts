import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderActionMatrix, renderCapabilityMatrix, renderScopeTable } from './render-markdown.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The text between `<!-- generated:NAME ... -->` and the next `<!-- /generated -->`. */
function generatedSection(name: string): string | undefined {
  const match = readme.match(new RegExp(`<!-- generated:${name} [^>]*-->\\n([\\s\\S]*?)\\n<!-- /generated -->`));
  return match?.[1];
}

describe('README', () => {
  it.each([
    ['capabilities', renderCapabilityMatrix],
    ['actions', renderActionMatrix],
    ['scopes', renderScopeTable],
  ])('embeds the current %s table', (name, render) => {
    expect(generatedSection(name)).toBe(render());
  });
});
