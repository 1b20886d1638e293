import { strFromU8 } from 'fflate';
import { FRAGMENT_CONTENT_MAX_BYTES, FRAGMENT_TAG_MAX, FRAGMENT_TAGS_MAX, FRAGMENT_TITLE_MAX } from '@kw/contracts';
import {
  ARCHIVE_INFLATE_LIMITS,
  ArchiveError,
  checkRecord,
  type ArchivedCollection,
  type ArchivedFragment,
  type ArchivedMembership,
  type ArchivedType,
  type ArchiveRecords,
} from '../../domain/workspace-archive.js';
import { listZip, ZipInflater } from '../../domain/archive-zip.js';
import { parseFrontmatter } from '../frontmatter.js';

const NOTE_TYPE: ArchivedType = { id: 'type:note', key: 'note', name: 'Note', description: '' };

/**
 * A zip of a Markdown folder (an Obsidian vault and the like) as the records of an archive
 * (docs/portable-workspaces.md#markdown-folders): each `.md` file a fragment (its path is its
 * archived id, so importing the folder again finds what the first import made, and its file
 * name its title), YAML frontmatter giving the tags, type and summary, each folder a collection. Hidden
 * folders (`.obsidian/`, `.trash/`) and other files are skipped; `[[wiki links]]` become graph
 * relations when the fragments are enriched.
 */
export async function readMarkdownFolder(
  bytes: Uint8Array,
  now = new Date(),
  limits = ARCHIVE_INFLATE_LIMITS,
): Promise<ArchiveRecords> {
  const listed = listZip(bytes);
  const paths = [...listed.keys()].filter(isNote).sort();
  if (paths.length === 0) throw new ArchiveError('the zip holds no Markdown (.md) files');
  // Only notes are inflated, none past a fragment's size (refused by its declared size, and
  // inflation never goes past that), and all of them within the archive's limits.
  const zip = new ZipInflater(bytes, limits);
  const entries: Record<string, Uint8Array> = {};
  for (const path of paths) {
    const entry = listed.get(path)!;
    if (entry.size > FRAGMENT_CONTENT_MAX_BYTES)
      throw new ArchiveError(`larger than ${FRAGMENT_CONTENT_MAX_BYTES} bytes, the most a fragment holds`, path);
    entries[path] = await zip.read(entry);
  }
  const types = new Map<string, ArchivedType>([[NOTE_TYPE.key, NOTE_TYPE]]);
  const collections = new Map<string, ArchivedCollection>();
  const fragments: ArchivedFragment[] = [];
  const memberships: ArchivedMembership[] = [];
  for (const path of paths) {
    const raw = entries[path]!;
    if (raw.length > FRAGMENT_CONTENT_MAX_BYTES)
      throw new ArchiveError(`larger than ${FRAGMENT_CONTENT_MAX_BYTES} bytes, the most a fragment holds`, path);
    const content = strFromU8(raw).replace(/^\uFEFF/, '');
    const fm = parseFrontmatter(content) ?? {};
    const type = typeOf(fm.type);
    if (!types.has(type.key)) types.set(type.key, type);
    // The file's name is the note's name, as in Obsidian: [[links]] name files, so the title
    // must too for links to meet (a frontmatter title stays in the content's frontmatter).
    // By code point, so a cut never splits a surrogate pair.
    const title = [...path.split('/').pop()!.replace(/\.md$/i, '').trim()].slice(0, FRAGMENT_TITLE_MAX).join('');
    const tags = tagsOf(fm.tags);
    const fragment: ArchivedFragment = {
      id: path,
      fragmentTypeId: types.get(type.key)!.id,
      title: title || 'Untitled',
      content,
      summary: typeof fm.summary === 'string' && fm.summary.trim() ? fm.summary.trim() : null,
      summarySource: null,
      tags,
      // A note without tags gets enrichment's; a note's own tags are kept as they are.
      enhanceTags: tags.length === 0,
      key: null,
      createdVia: 'import',
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      archivedAt: null,
    };
    // The rules an archive's records meet (a NUL in a note, say, names the note, before any write).
    try {
      fragments.push(checkRecord('fragments.ndjson', { ...fragment }));
    } catch (err) {
      throw new ArchiveError((err as Error).message, path);
    }
    const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    if (folder) {
      const id = `folder:${folder}`;
      if (!collections.has(id)) collections.set(id, { id, name: folder.slice(0, 200), description: '' });
      memberships.push({ collectionId: id, fragmentId: path });
    }
  }
  return {
    'fragment-types.ndjson': [...types.values()],
    'fragments.ndjson': fragments,
    'collections.ndjson': [...collections.values()],
    'collection-fragments.ndjson': memberships,
    'graph-entities.ndjson': [],
    'graph-relations.ndjson': [],
    'files.ndjson': [],
  };
}

function isNote(path: string): boolean {
  return /\.md$/i.test(path) && !path.split('/').some((part) => part.startsWith('.') || part === '__MACOSX');
}

/** Frontmatter `type: Meeting Notes` → the type `meeting-notes` (named "Meeting Notes"); none → note. */
function typeOf(value: unknown): ArchivedType {
  if (typeof value !== 'string') return NOTE_TYPE;
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return key ? { id: `type:${key}`, key, name: value.trim().slice(0, 100), description: '' } : NOTE_TYPE;
}

/** `tags: [a, b]`, `tags: "a, b"` or `tags: "#a #b"`: the tags, without `#`, within the fragment limits. */
function tagsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\s]+/) : [];
  const tags = list
    .filter((t): t is string | number => typeof t === 'string' || typeof t === 'number')
    .map((t) => String(t).trim().replace(/^#/, '').slice(0, FRAGMENT_TAG_MAX))
    .filter((t) => t !== '');
  return [...new Set(tags)].slice(0, FRAGMENT_TAGS_MAX);
}
