import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { allRecords, ArchiveError } from '../../domain/workspace-archive.js';
import { readMarkdownFolder } from './markdown-folder.js';

const vault = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])));

describe('a Markdown folder as archive records', () => {
  it('makes each note a fragment named by its file, frontmatter its tags, type and summary, folders collections', async () => {
    const { source, trimmed } = await readMarkdownFolder(
      vault({
        'Work/Plans/Q4.md':
          '\uFEFF---\ntitle: Ignored for the name\ntags: "#launch, q4 launch"\ntype: Meeting Notes\nsummary: Plan\n---\nBody',
        'Inbox.md': 'No frontmatter',
        '.obsidian/workspace.md': 'hidden',
        '__MACOSX/Work/._Q4.md': 'resource fork',
        'Work/image.png': 'png',
      }),
    );
    const records = await allRecords(source);
    expect(records['fragments.ndjson'].map((f) => [f.id, f.title, f.tags, f.summary, f.enhanceTags])).toEqual([
      ['Inbox.md', 'Inbox', [], null, true],
      ['Work/Plans/Q4.md', 'Q4', ['launch', 'q4'], 'Plan', false],
    ]);
    expect(records['fragments.ndjson'][1]!.content.startsWith('---\ntitle')).toBe(true);
    expect(records['fragment-types.ndjson'].map((t) => [t.key, t.name])).toEqual([
      ['note', 'Note'],
      ['meeting-notes', 'Meeting Notes'],
    ]);
    expect(records['fragments.ndjson'][1]!.fragmentTypeId).toBe('type:meeting-notes');
    expect(records['collections.ndjson']).toEqual([{ id: 'folder:Work/Plans', name: 'Work/Plans', description: '' }]);
    expect(records['collection-fragments.ndjson']).toEqual([
      { collectionId: 'folder:Work/Plans', fragmentId: 'Work/Plans/Q4.md' },
    ]);
    expect(trimmed).toEqual([]);
  });

  it('refuses a zip without notes, and a note larger than a fragment, naming it', async () => {
    await expect(readMarkdownFolder(vault({ 'a.txt': 'x' }))).rejects.toThrow(ArchiveError);
    await expect(readMarkdownFolder(vault({ 'big.md': 'x'.repeat(1_000_001) }))).rejects.toThrow(
      /^big\.md: larger than 1000000 bytes/,
    );
    await expect(readMarkdownFolder(strToU8('not a zip'))).rejects.toThrow(/truncated or damaged/);
  });
});
