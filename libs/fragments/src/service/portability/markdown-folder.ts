import { createHash } from 'node:crypto';
import {
  charCount,
  COLLECTION_NAME_MAX,
  FRAGMENT_CONTENT_MAX_BYTES,
  FRAGMENT_SUMMARY_MAX,
  FRAGMENT_TAG_MAX,
  FRAGMENT_TAGS_MAX,
  FRAGMENT_TITLE_MAX,
  FRAGMENT_TYPE_KEY_MAX,
  FRAGMENT_TYPE_NAME_MAX,
} from '@kw/contracts';
import {
  ARCHIVE_INFLATE_LIMITS,
  ArchiveError,
  checkRecord,
  utf8Text,
  type ArchivedCollection,
  type ArchivedFragment,
  type ArchivedMembership,
  type ArchivedType,
  type ArchiveRecords,
  type EntryName,
  type RecordSource,
} from '../../domain/workspace-archive.js';
import { listZip, ZipInflater } from '../../domain/archive-zip.js';
import { parseFrontmatter } from '../frontmatter.js';

const NOTE_TYPE: ArchivedType = { id: 'type:note', key: 'note', name: 'Note', description: '' };

/**
 * A value of a note cut to a fragment's limit (docs/portable-workspaces.md#markdown-folders): the
 * note (or, for a collection, the folder), the field and the limit (of items for `tags`, of
 * characters otherwise). The job's result lists them (`trimmed`).
 */
export interface TrimmedValue {
  entry: string;
  field: 'title' | 'summary' | 'tags' | 'tag' | 'type' | 'collection name';
  limit: number;
}

/** At most this many cuts are listed in a job's result (one per note and field; a vault of thousands would swell it). */
export const TRIMMED_LISTED_MAX = 1000;

/** `value` within `max` characters (as the API counts them), cut by code point so no surrogate pair is split. */
function cut(value: string, max: number): { value: string; cut: boolean } {
  if (charCount(value) <= max) return { value, cut: false };
  return { value: [...value].slice(0, max).join(''), cut: true };
}

/**
 * A zip of a Markdown folder (an Obsidian vault and the like) as the records of an archive
 * (docs/portable-workspaces.md#markdown-folders): each `.md` file a fragment (its path is its
 * archived id, so importing the folder again finds what the first import made, and its file
 * name its title), YAML frontmatter giving the tags, type and summary, each folder a collection. Hidden
 * folders (`.obsidian/`, `.trash/`) and other files are skipped; `[[wiki links]]` become graph
 * relations when the fragments are enriched. Every note is checked first, one at a time, and only
 * the types, folders and paths are kept: `records('fragments.ndjson')` reads each note again.
 */
export async function readMarkdownFolder(
  bytes: Uint8Array,
  now = new Date(),
  limits = ARCHIVE_INFLATE_LIMITS,
): Promise<{ source: RecordSource; trimmed: TrimmedValue[] }> {
  const listed = listZip(bytes);
  const paths = [...listed.keys()].filter(isNote).sort();
  if (paths.length === 0) throw new ArchiveError('the zip holds no Markdown (.md) files');
  // Only notes are inflated, none past a fragment's size (refused by its declared size, and
  // inflation never goes past that), and all of them within the archive's limits.
  const zip = new ZipInflater(bytes, limits);
  for (const path of paths)
    if (listed.get(path)!.size > FRAGMENT_CONTENT_MAX_BYTES)
      throw new ArchiveError(`larger than ${FRAGMENT_CONTENT_MAX_BYTES} bytes, the most a fragment holds`, path);
  zip.assertWithinTotal(paths.map((path) => listed.get(path)!));
  const trimmed: TrimmedValue[] = [];
  const types = new Map<string, ArchivedType>([[NOTE_TYPE.key, NOTE_TYPE]]);
  const collections = new Map<string, ArchivedCollection>();
  const memberships: ArchivedMembership[] = [];
  for (const path of paths) {
    const { type } = noteOf(path, await zip.read(listed.get(path)!), now, trimmed);
    if (!types.has(type.key)) types.set(type.key, type);
    const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    if (folder) {
      const id = `folder:${folder}`;
      if (!collections.has(id)) collections.set(id, { id, name: collectionName(folder, trimmed), description: '' });
      memberships.push({ collectionId: id, fragmentId: path });
    }
  }
  const held: Omit<ArchiveRecords, 'fragments.ndjson'> = {
    'fragment-types.ndjson': [...types.values()],
    'collections.ndjson': [...collections.values()],
    'collection-fragments.ndjson': memberships,
    'graph-entities.ndjson': [],
    'graph-relations.ndjson': [],
    'files.ndjson': [],
  };
  async function* notes(): AsyncGenerator<ArchivedFragment> {
    // Read again as checked (the same bytes, so the same record; its cuts were listed then).
    for (const path of paths)
      yield noteOf(path, await zip.read(listed.get(path)!, { counted: false }), now, []).fragment;
  }
  const source: RecordSource = {
    counts: {
      ...(Object.fromEntries(Object.entries(held).map(([name, list]) => [name, list.length])) as Record<
        EntryName,
        number
      >),
      'fragments.ndjson': paths.length,
    },
    // A note's place is its path, a folder's its path: the archived ids (`folder:` aside).
    placeOf: (_entry, recordId) => recordId.replace(/^folder:/, ''),
    records: <K extends EntryName>(name: K) =>
      (name === 'fragments.ndjson'
        ? notes()
        : toAsync<unknown>(held[name as Exclude<EntryName, 'fragments.ndjson'>])) as AsyncIterable<
        ArchiveRecords[K][number]
      >,
  };
  return { source, trimmed };
}

async function* toAsync<T>(list: readonly T[]): AsyncGenerator<T> {
  yield* list;
}

/**
 * One note as a fragment of the type its frontmatter names (`type:<key>`), checked as an archive's
 * records are; each value cut to a fragment's limit is told to `trimmed`.
 */
function noteOf(
  path: string,
  raw: Uint8Array,
  now: Date,
  trimmed: TrimmedValue[],
): { fragment: ArchivedFragment; type: ArchivedType } {
  if (raw.length > FRAGMENT_CONTENT_MAX_BYTES)
    throw new ArchiveError(`larger than ${FRAGMENT_CONTENT_MAX_BYTES} bytes, the most a fragment holds`, path);
  // Lenient but visible (decision): a note is someone's own text, not our archive, so a value
  // past a fragment's limit is cut to it, and each cut is listed in the job's result.
  const trim = (value: string, max: number, field: TrimmedValue['field']) => {
    const result = cut(value, max);
    if (result.cut) trimmed.push({ entry: path, field, limit: max });
    return result.value;
  };
  const content = utf8Text(raw, path).replace(/^\uFEFF/, '');
  const fm = parseFrontmatter(content) ?? {};
  const type = typeOf(fm.type, (field) => trimmed.push({ entry: path, ...field }));
  // The file's name is the note's name, as in Obsidian: [[links]] name files, so the title
  // must too for links to meet (a frontmatter title stays in the content's frontmatter).
  const title = trim(path.split('/').pop()!.replace(/\.md$/i, '').trim(), FRAGMENT_TITLE_MAX, 'title');
  const summary =
    typeof fm.summary === 'string' && fm.summary.trim()
      ? trim(fm.summary.trim(), FRAGMENT_SUMMARY_MAX, 'summary')
      : null;
  const tags = tagsOf(fm.tags, (field) => trimmed.push({ entry: path, ...field }));
  const fragment: ArchivedFragment = {
    id: path,
    // The first note naming a type key gives its name; every note of the key is of that type.
    fragmentTypeId: type.id,
    title: title || 'Untitled',
    content,
    summary,
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
    return { fragment: checkRecord('fragments.ndjson', { ...fragment }), type };
  } catch (err) {
    throw new ArchiveError((err as Error).message, path);
  }
}

/**
 * A folder's path as a collection name; a path past the limit is cut and ends in `~` and 8 hex
 * digits of its SHA-256, so two folders that share their first characters stay two collections.
 */
function collectionName(folder: string, trimmed: TrimmedValue[]): string {
  if (charCount(folder) <= COLLECTION_NAME_MAX) return folder;
  trimmed.push({ entry: folder, field: 'collection name', limit: COLLECTION_NAME_MAX });
  const suffix = `~${createHash('sha256').update(folder).digest('hex').slice(0, 8)}`;
  return [...folder].slice(0, COLLECTION_NAME_MAX - suffix.length).join('') + suffix;
}

function isNote(path: string): boolean {
  return /\.md$/i.test(path) && !path.split('/').some((part) => part.startsWith('.') || part === '__MACOSX');
}

/** Frontmatter `type: Meeting Notes` → the type `meeting-notes` (named "Meeting Notes"); none → note. */
function typeOf(value: unknown, trimmed: (cut: Omit<TrimmedValue, 'entry'>) => void): ArchivedType {
  if (typeof value !== 'string') return NOTE_TYPE;
  const whole = value
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const key = whole.slice(0, FRAGMENT_TYPE_KEY_MAX);
  if (!key) return NOTE_TYPE;
  const name = cut(value.trim(), FRAGMENT_TYPE_NAME_MAX);
  if (key !== whole || name.cut)
    trimmed({ field: 'type', limit: key !== whole ? FRAGMENT_TYPE_KEY_MAX : FRAGMENT_TYPE_NAME_MAX });
  return { id: `type:${key}`, key, name: name.value, description: '' };
}

/**
 * `tags: [a, b]`, `tags: "a, b"` or `tags: "#a #b"`: the tags, without `#`, cut to the fragment
 * limits (a tag to its characters, the list to its first ones), each cut told to `trimmed`.
 */
function tagsOf(value: unknown, trimmed: (cut: Omit<TrimmedValue, 'entry'>) => void): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\s]+/) : [];
  let tagCut = false;
  const tags = list
    .filter((t): t is string | number => typeof t === 'string' || typeof t === 'number')
    .map((t) => {
      const tag = cut(String(t).trim().replace(/^#/, ''), FRAGMENT_TAG_MAX);
      tagCut ||= tag.cut;
      return tag.value;
    })
    .filter((t) => t !== '');
  if (tagCut) trimmed({ field: 'tag', limit: FRAGMENT_TAG_MAX });
  const unique = [...new Set(tags)];
  if (unique.length > FRAGMENT_TAGS_MAX) trimmed({ field: 'tags', limit: FRAGMENT_TAGS_MAX });
  return unique.slice(0, FRAGMENT_TAGS_MAX);
}
