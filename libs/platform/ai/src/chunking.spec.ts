import { describe, expect, it } from 'vitest';
import { chunkText } from './chunking.js';

const paragraph = (n: number) => `Paragraph ${n} ` + 'lorem ipsum dolor sit amet '.repeat(12).trim() + '.';

describe('chunkText', () => {
  it('keeps short content in one chunk and empty content in none', () => {
    expect(chunkText('  Hello world.  ')).toEqual(['Hello world.']);
    expect(chunkText('   ')).toEqual([]);
  });

  it('cuts long content at paragraphs into chunks of about the target size, with overlap', () => {
    const text = Array.from({ length: 20 }, (_, i) => paragraph(i)).join('\n\n');
    const chunks = chunkText(text, 1000, 150);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(1000 + 200);
    for (let i = 0; i < 20; i++) expect(chunks.some((c) => c.includes(`Paragraph ${i} `))).toBe(true);
    // The start of each later chunk repeats the end of the previous one.
    for (let i = 1; i < chunks.length; i++) {
      const head = chunks[i].split('\n\n')[0];
      expect(chunks[i - 1].endsWith(head)).toBe(true);
    }
  });

  it('starts a new chunk at each heading of a long text', () => {
    const section = (title: string) => `# ${title}\n\n${paragraph(1)}\n\n${paragraph(2)}`;
    const chunks = chunkText([section('Alpha'), section('Beta'), section('Gamma')].join('\n\n'), 1000, 100);
    expect(chunks.filter((c) => /^# /.test(c)).map((c) => c.split('\n')[0])).toEqual(['# Alpha', '# Beta', '# Gamma']);
  });

  it('splits a paragraph longer than the target at sentence or word boundaries', () => {
    const text = 'word '.repeat(1000).trim();
    const chunks = chunkText(text, 1000, 0);
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(1000);
    expect(chunks.join(' ').split(' ').length).toBe(1000);
  });

  it('is deterministic', () => {
    const text = Array.from({ length: 10 }, (_, i) => paragraph(i)).join('\n\n');
    expect(chunkText(text)).toEqual(chunkText(text));
  });
});
