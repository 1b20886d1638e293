import { createHash } from 'node:crypto';
import { strToU8, zip, zipSync, type Zippable } from 'fflate';
import {
  charCount,
  COLLECTION_NAME_MAX,
  CREATED_VIA,
  DESCRIPTION_MAX,
  FRAGMENT_CONTENT_MAX_BYTES,
  FRAGMENT_KEY_MAX,
  FRAGMENT_SUMMARY_MAX,
  FRAGMENT_TAG_MAX,
  FRAGMENT_TAGS_MAX,
  FRAGMENT_TITLE_MAX,
  FRAGMENT_TYPE_KEY_MAX,
  FRAGMENT_TYPE_NAME_MAX,
  utf8Bytes,
} from '@kw/contracts';
import { assertValidKey } from '@kw/platform-storage';
import { ArchiveError } from './archive-error.js';
import { listZip, ZipInflater, type InflateLimits, type ZipEntry } from './archive-zip.js';

/**
 * The portable workspace archive, version 1 (docs/portable-workspaces.md): one zip holding
 * `manifest.json`, one NDJSON file per kind of record, each listed in the manifest with its
 * line count and SHA-256, and each file's bytes under `files/<id>` with its own SHA-256, so a reader can tell a damaged archive from a valid one before
 * writing anything, and say where the damage is.
 */
export const ARCHIVE_FORMAT = 'kw-workspace-archive';
export const ARCHIVE_VERSION = 1;

export interface ArchivedType {
  id: string;
  key: string;
  name: string;
  description: string;
}

export interface ArchivedFragment {
  id: string;
  fragmentTypeId: string;
  title: string;
  content: string;
  summary: string | null;
  /** "user" when a person wrote the summary, "ai" when enrichment did, null without one. */
  summarySource: string | null;
  tags: string[];
  enhanceTags: boolean;
  key: string | null;
  createdVia: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
}

export interface ArchivedCollection {
  id: string;
  name: string;
  description: string;
}

export interface ArchivedMembership {
  collectionId: string;
  fragmentId: string;
}

export interface ArchivedEntity {
  id: string;
  kind: string;
  name: string;
}

export interface ArchivedRelation {
  sourceId: string;
  targetId: string;
  kind: string;
  fragmentId: string;
}

export interface ArchivedFile {
  id: string;
  name: string;
  description: string;
  mimeType: string;
  kind: string;
  sizeBytes: number;
  /** Of the bytes in `files/<id>`. */
  sha256: string;
  /** The archived fragments it is attached to. */
  fragmentIds: string[];
}

/** Where a file's bytes are in the zip. */
export const fileEntry = (id: string) => `files/${id}`;

/** Every record of a workspace, by the archive entry that holds it. */
export interface ArchiveRecords {
  'fragment-types.ndjson': ArchivedType[];
  'fragments.ndjson': ArchivedFragment[];
  'collections.ndjson': ArchivedCollection[];
  'collection-fragments.ndjson': ArchivedMembership[];
  'graph-entities.ndjson': ArchivedEntity[];
  'graph-relations.ndjson': ArchivedRelation[];
  'files.ndjson': ArchivedFile[];
}

export type EntryName = keyof ArchiveRecords;
export const ENTRY_NAMES: readonly EntryName[] = [
  'fragment-types.ndjson',
  'fragments.ndjson',
  'collections.ndjson',
  'collection-fragments.ndjson',
  'graph-entities.ndjson',
  'graph-relations.ndjson',
  'files.ndjson',
];

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  version: typeof ARCHIVE_VERSION;
  exportedAt: string;
  source: { workspaceId: string };
  entries: Record<EntryName, { records: number; sha256: string }>;
}

export { ArchiveError };

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export async function writeArchive(
  source: ArchiveManifest['source'],
  records: ArchiveRecords,
  exportedAt = new Date(),
  fileBytes: ReadonlyMap<string, Uint8Array> = new Map(),
): Promise<Uint8Array> {
  const files: Zippable = {};
  let size = 0; // uncompressed, to choose the thread (IN_THREAD_ZIP_BYTES)
  // Stored, not deflated again: most files (PDF, images, office documents) are compressed already.
  for (const file of records['files.ndjson']) {
    const bytes = fileBytes.get(file.id)!;
    files[fileEntry(file.id)] = [bytes, { level: 0 }];
    size += bytes.length;
  }
  const entries = {} as ArchiveManifest['entries'];
  for (const name of ENTRY_NAMES) {
    const lines = (records[name] as unknown[]).map((r) => `${JSON.stringify(r)}\n`).join('');
    const bytes = strToU8(lines);
    files[name] = bytes;
    size += bytes.length;
    entries[name] = { records: records[name].length, sha256: sha256(bytes) };
  }
  const manifest: ArchiveManifest = {
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    exportedAt: exportedAt.toISOString(),
    source,
    entries,
  };
  files['manifest.json'] = strToU8(`${JSON.stringify(manifest, null, 2)}\n`);
  if (size <= IN_THREAD_ZIP_BYTES) return zipSync(files, { level: 6 });
  return new Promise((resolve, reject) => zip(files, { level: 6 }, (err, data) => (err ? reject(err) : resolve(data))));
}

/**
 * Archives up to this size are zipped on the calling thread: about 16 ms per MiB
 * at level 6 here, so a few MiB block the process's other requests for tens of milliseconds,
 * less than starting fflate's worker threads costs. Larger ones go to those workers, so a big
 * workspace's export or import does not stall every request of the process for seconds.
 */
const IN_THREAD_ZIP_BYTES = 2 * 1024 * 1024;

type Check<T> = (value: Record<string, unknown>) => T;

/** What a string field of a record may hold: the API's rules for the field it is written to. */
interface TextRule {
  nullable?: boolean;
  /** Not empty nor only white space. */
  nonBlank?: boolean;
  maxChars?: number;
  maxBytes?: number;
  oneOf?: readonly string[];
  pattern?: { test: RegExp; says: string };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A fragment type's key, as the API takes it (FragmentTypesHandlers). */
const TYPE_KEY = /^[a-z0-9][a-z0-9_-]*$/;
/** An archived id: any text without control characters (a UUID from an export, a path from a folder). */
const ID_MAX_CHARS = 1_000;

/**
 * A string field, refused as the API would refuse it (docs/errors.md, "Input the platform refuses
 * everywhere", and the field limits): no NUL, well-formed Unicode, within its limits. PostgreSQL
 * cannot store the first two, so an archive holding them must fail here, not while writing.
 */
function text(v: unknown, field: string, rule: TextRule & { nullable: true }): string | null;
function text(v: unknown, field: string, rule?: TextRule): string;
function text(v: unknown, field: string, rule: TextRule = {}): string | null {
  if (rule.nullable && v === null) return null;
  if (typeof v !== 'string') throw new Error(`${field} must be a string${rule.nullable ? ' or null' : ''}`);
  if (v.includes('\u0000')) throw new Error(`${field} must not contain the NUL character (U+0000)`);
  if (LONE_SURROGATE.test(v))
    throw new Error(`${field} must be well-formed Unicode (it contains a lone UTF-16 surrogate)`);
  if (rule.nonBlank && !/\S/.test(v)) throw new Error(`${field} must not be blank`);
  if (rule.maxChars !== undefined && charCount(v) > rule.maxChars)
    throw new Error(`${field} must be shorter than or equal to ${rule.maxChars} characters`);
  if (rule.maxBytes !== undefined && utf8Bytes(v) > rule.maxBytes)
    throw new Error(`${field} must be at most ${rule.maxBytes} bytes`);
  if (rule.oneOf && !rule.oneOf.includes(v)) throw new Error(`${field} must be one of ${rule.oneOf.join(', ')}`);
  if (rule.pattern && !rule.pattern.test.test(v)) throw new Error(`${field} ${rule.pattern.says}`);
  return v;
}

const id = (v: unknown, field = 'id') => text(v, field, { nonBlank: true, maxChars: ID_MAX_CHARS });

/** A file id is part of the blob key its bytes are staged under (`transfers/<ws>/<job>-files/<id>`): 345 characters at most in all. */
const FILE_ID_MAX_CHARS = 255;

/**
 * A file's id, as blob storage takes it (libs/platform/storage/src/blob-key.ts): its bytes are
 * staged under it, so an id storage would refuse is refused here, before any write, with its line.
 */
function fileId(v: unknown): string {
  const value = id(v);
  let valid = value.length <= FILE_ID_MAX_CHARS;
  try {
    assertValidKey(value);
  } catch {
    valid = false;
  }
  if (!valid)
    throw new Error(
      `id must be at most ${FILE_ID_MAX_CHARS} of the characters A-Z a-z 0-9 . _ - and /, in /-separated parts that are not empty and do not start with a dot`,
    );
  return value;
}

function texts(v: unknown, field: string, rule: TextRule & { maxItems?: number } = {}): string[] {
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw new Error(`${field} must be a list of strings`);
  if (rule.maxItems !== undefined && v.length > rule.maxItems)
    throw new Error(`${field} must contain no more than ${rule.maxItems} elements`);
  return v.map((t: string) => text(t, `each value in ${field}`, rule));
}

/** An ISO 8601 time, as the export writes them. */
function time(v: unknown, field: string, nullable = false): string | null {
  if (nullable && v === null) return null;
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(Date.parse(v)))
    throw new Error(`${field} must be an ISO 8601 date-time${nullable ? ' or null' : ''}`);
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new Error(`${field} must be a boolean`);
  return v;
}

const CHECKS: { [K in EntryName]: Check<ArchiveRecords[K][number]> } = {
  'fragment-types.ndjson': (r) => ({
    id: id(r.id),
    key: text(r.key, 'key', {
      maxChars: FRAGMENT_TYPE_KEY_MAX,
      pattern: { test: TYPE_KEY, says: 'must be lower-case letters, digits, - or _' },
    }),
    name: text(r.name, 'name', { nonBlank: true, maxChars: FRAGMENT_TYPE_NAME_MAX }),
    description: text(r.description ?? '', 'description', { maxChars: DESCRIPTION_MAX }),
  }),
  'fragments.ndjson': (r) => ({
    id: id(r.id),
    fragmentTypeId: id(r.fragmentTypeId, 'fragmentTypeId'),
    title: text(r.title, 'title', { nonBlank: true, maxChars: FRAGMENT_TITLE_MAX }),
    content: text(r.content, 'content', { maxBytes: FRAGMENT_CONTENT_MAX_BYTES }),
    summary: text(r.summary ?? null, 'summary', { nullable: true, maxChars: FRAGMENT_SUMMARY_MAX }),
    summarySource: text(r.summarySource ?? null, 'summarySource', { nullable: true, oneOf: ['user', 'ai'] }),
    tags: texts(r.tags, 'tags', { maxItems: FRAGMENT_TAGS_MAX, maxChars: FRAGMENT_TAG_MAX }),
    enhanceTags: bool(r.enhanceTags, 'enhanceTags'),
    key: text(r.key ?? null, 'key', {
      nullable: true,
      maxChars: FRAGMENT_KEY_MAX,
      pattern: { test: /^[\s\S]+$/, says: 'must not be empty' },
    }),
    createdVia: text(r.createdVia ?? 'import', 'createdVia', { oneOf: CREATED_VIA }),
    createdAt: time(r.createdAt, 'createdAt')!,
    updatedAt: time(r.updatedAt, 'updatedAt')!,
    archivedAt: time(r.archivedAt ?? null, 'archivedAt', true),
  }),
  'collections.ndjson': (r) => ({
    id: id(r.id),
    name: text(r.name, 'name', { nonBlank: true, maxChars: COLLECTION_NAME_MAX }),
    description: text(r.description ?? '', 'description', { maxChars: DESCRIPTION_MAX }),
  }),
  'collection-fragments.ndjson': (r) => ({
    collectionId: id(r.collectionId, 'collectionId'),
    fragmentId: id(r.fragmentId, 'fragmentId'),
  }),
  'graph-entities.ndjson': (r) => ({
    id: id(r.id),
    kind: text(r.kind, 'kind'),
    name: text(r.name, 'name'),
  }),
  'graph-relations.ndjson': (r) => ({
    sourceId: id(r.sourceId, 'sourceId'),
    targetId: id(r.targetId, 'targetId'),
    kind: text(r.kind, 'kind'),
    fragmentId: id(r.fragmentId, 'fragmentId'),
  }),
  'files.ndjson': (r) => {
    if (!Number.isSafeInteger(r.sizeBytes) || (r.sizeBytes as number) < 0)
      throw new Error('sizeBytes must be a non-negative integer');
    if (typeof r.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(r.sha256))
      throw new Error('sha256 must be 64 hex digits');
    return {
      id: fileId(r.id),
      name: text(r.name, 'name', { nonBlank: true }),
      description: text(r.description ?? '', 'description', { maxChars: DESCRIPTION_MAX }),
      // What the file is, the platform finds from its bytes as for an upload; these say what the source thought.
      mimeType: text(r.mimeType, 'mimeType', { maxChars: 255 }),
      kind: text(r.kind, 'kind', { maxChars: 255 }),
      sizeBytes: r.sizeBytes as number,
      sha256: r.sha256,
      fragmentIds: texts(r.fragmentIds, 'fragmentIds', { nonBlank: true, maxChars: ID_MAX_CHARS }),
    };
  },
};

/**
 * Checks one record of an entry as the import reads it: the API's rules for every field it
 * writes (so a record that passes is one the API takes), in the record's typed form. Throws an
 * Error saying what is wrong; the caller adds the place.
 */
export function checkRecord<K extends EntryName>(entry: K, value: Record<string, unknown>): ArchiveRecords[K][number] {
  return CHECKS[entry](value) as ArchiveRecords[K][number];
}

/** Entries whose records each have an id that others refer to: an id given twice would be ambiguous. */
const ENTRIES_WITH_IDS: readonly EntryName[] = [
  'fragment-types.ndjson',
  'fragments.ndjson',
  'collections.ndjson',
  'graph-entities.ndjson',
  'files.ndjson',
];

/**
 * The uncompressed bytes an import inflates at most (docs/portable-workspaces.md, "What an import
 * inflates"): per entry as much as the largest archive an import takes, and by default four times
 * that in total (text deflates about that well; IMPORT_MAX_INFLATED_BYTES sets it), so that a zip
 * bomb is refused by what its entries declare, before any of them is inflated.
 */
export const ARCHIVE_INFLATE_LIMITS: InflateLimits = {
  maxEntryBytes: 256 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
};

/** The limits with a total of `maxTotalBytes` (IMPORT_MAX_INFLATED_BYTES): no entry may hold more than all of them. */
export const inflateLimits = (maxTotalBytes: number): InflateLimits => ({
  maxEntryBytes: Math.min(ARCHIVE_INFLATE_LIMITS.maxEntryBytes, maxTotalBytes),
  maxTotalBytes,
});

/**
 * The most one NDJSON line may hold: a record the API takes fits many times (a fragment's
 * 1,000,000 bytes of content, every byte escaped as `\u00XX`, is 6 MB). Lines are read as they
 * inflate, so this, not an entry's size, bounds what one record costs before it is checked.
 */
export const RECORD_MAX_BYTES = 16 * 1024 * 1024;
/** The manifest names seven entries: a few hundred bytes. */
const MANIFEST_MAX_BYTES = 1024 * 1024;

/** Strict UTF-8 (docs/errors.md): bytes that are not are refused, never replaced by U+FFFD. The BOM stays text. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `bytes` as text, or an ArchiveError naming `entry` (and `line`) when they are not UTF-8. */
export function utf8Text(bytes: Uint8Array, entry: string, line?: number): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ArchiveError('is not UTF-8 text', entry, line);
  }
}

/**
 * The lines of an NDJSON entry as it inflates, each decoded as strict UTF-8 (a newline byte
 * never occurs inside a UTF-8 sequence, so lines are split on bytes), with its 1-based number.
 * Every chunk passes through `seen` (the checksum). Fails at a line longer than RECORD_MAX_BYTES
 * without reading the rest of it. The final line needs no newline; an empty entry has none.
 */
async function* ndjsonLines(
  chunks: AsyncIterable<Uint8Array>,
  entry: string,
  seen: (chunk: Uint8Array) => void,
): AsyncGenerator<{ text: string; line: number }> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let line = 0;
  const hold = (piece: Uint8Array) => {
    pendingBytes += piece.length;
    if (pendingBytes > RECORD_MAX_BYTES)
      throw new ArchiveError(`longer than ${RECORD_MAX_BYTES} bytes, the most one record may take`, entry, line + 1);
    if (piece.length > 0) pending.push(piece);
  };
  const take = () => {
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    line++;
    return { text: utf8Text(bytes, entry, line), line };
  };
  for await (const chunk of chunks) {
    seen(chunk);
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      hold(chunk.subarray(from, nl));
      yield take();
      from = nl + 1;
    }
    hold(chunk.subarray(from));
  }
  if (pendingBytes > 0) yield take();
}

/** Opens a checked file's bytes again, as they inflate, to be written (never held whole). */
export type ArchiveFileReader = (fileId: string) => AsyncIterable<Uint8Array>;

/**
 * Checked records, read again one at a time to be written (an archive's entries, or a Markdown
 * folder's notes): what an import holds is their count, never their content.
 */
export interface RecordSource {
  /** How many records each entry holds. */
  counts: Record<EntryName, number>;
  /** An entry's records in order, each checked as the check pass checked it, as the entry inflates again. */
  records<K extends EntryName>(entry: K): AsyncIterable<ArchiveRecords[K][number]>;
  /**
   * Where a record is, as a job's error names it, when the source is not an archive's entries
   * (a Markdown folder: the note's path); absent: `<entry> line <n>`.
   */
  placeOf?(entry: EntryName, recordId: string): string;
}

/** A checked archive: its manifest, its records to read again, and each file's bytes to read again. */
export interface CheckedArchive extends RecordSource {
  manifest: ArchiveManifest;
  openFile: ArchiveFileReader;
}

/** Every record of a source at once: for small archives and tests (an import reads them one at a time). */
export async function allRecords(source: RecordSource): Promise<ArchiveRecords> {
  const records = {} as Record<EntryName, unknown[]>;
  for (const name of ENTRY_NAMES) {
    const list: unknown[] = [];
    for await (const record of source.records(name)) list.push(record);
    records[name] = list;
  }
  return records as unknown as ArchiveRecords;
}

/** `checkArchive`, with every record held at once (`allRecords`). */
export async function readArchive(
  bytes: Uint8Array,
  options: { skipFiles?: boolean; limits?: InflateLimits } = {},
): Promise<{ manifest: ArchiveManifest; records: ArchiveRecords; openFile: ArchiveFileReader }> {
  const checked = await checkArchive(bytes, options);
  return { manifest: checked.manifest, records: await allRecords(checked), openFile: checked.openFile };
}

/** Parses and checks one NDJSON line of `name`: the record in its typed form, or an ArchiveError naming the line. */
function parseRecord<K extends EntryName>(name: K, line: string, number: number): ArchiveRecords[K][number] {
  try {
    const value: unknown = JSON.parse(line);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return CHECKS[name](value as Record<string, unknown>) as ArchiveRecords[K][number];
  } catch (err) {
    throw new ArchiveError((err as Error).message, name, number);
  }
}

/**
 * What the check pass keeps of the records to check the references between them: the ids each
 * entry holds (with their lines, for an id given twice), and of each kind of reference the first
 * line naming a record the archive lacks. Every reference names an entry read before its own
 * (ENTRY_NAMES' order), so each is resolved at its line and no record is kept.
 */
class References {
  readonly ids = new Map<EntryName, Map<string, number>>(ENTRIES_WITH_IDS.map((name) => [name, new Map()]));
  private readonly broken = new Map<EntryName, number>();

  /**
   * Each membership's first line, by the lines of its collection and fragment (numbers, not the
   * ids: a few bytes a membership however many there are).
   */
  private readonly memberships = new Map<number, number>();

  /** Whether `entry` holds a record of that id. */
  has(entry: EntryName, id: string): boolean {
    return this.ids.get(entry)!.has(id);
  }

  /** The line that gave this membership before, if one did; otherwise it is noted at `line`. */
  repeatedMembership(m: ArchivedMembership, line: number): number | undefined {
    const fragments = this.ids.get('fragments.ndjson')!;
    const collectionLine = this.ids.get('collections.ndjson')!.get(m.collectionId);
    const fragmentLine = fragments.get(m.fragmentId);
    // One naming a record the archive lacks is refused as such (assertResolved).
    if (collectionLine === undefined || fragmentLine === undefined) return undefined;
    const pair = collectionLine * (fragments.size + 1) + fragmentLine;
    const first = this.memberships.get(pair);
    if (first === undefined) this.memberships.set(pair, line);
    return first;
  }

  check(name: EntryName, record: unknown, line: number): void {
    const ok = (() => {
      switch (name) {
        case 'fragments.ndjson':
          return this.has('fragment-types.ndjson', (record as ArchivedFragment).fragmentTypeId);
        case 'collection-fragments.ndjson': {
          const m = record as ArchivedMembership;
          return this.has('collections.ndjson', m.collectionId) && this.has('fragments.ndjson', m.fragmentId);
        }
        case 'graph-relations.ndjson': {
          const r = record as ArchivedRelation;
          return (
            this.has('graph-entities.ndjson', r.sourceId) &&
            this.has('graph-entities.ndjson', r.targetId) &&
            this.has('fragments.ndjson', r.fragmentId)
          );
        }
        case 'files.ndjson':
          return (record as ArchivedFile).fragmentIds.every((id) => this.has('fragments.ndjson', id));
        default:
          return true;
      }
    })();
    if (!ok && !this.broken.has(name)) this.broken.set(name, line);
  }

  /** Throws for the first reference the archive cannot resolve, entry by entry. */
  assertResolved(): void {
    for (const [name, why] of REFERENCE_ERRORS) {
      const line = this.broken.get(name);
      if (line !== undefined) throw new ArchiveError(why, name, line);
    }
  }
}

const REFERENCE_ERRORS: ReadonlyArray<[EntryName, string]> = [
  ['fragments.ndjson', 'fragmentTypeId names no type'],
  ['collection-fragments.ndjson', 'names a collection or fragment the archive lacks'],
  ['graph-relations.ndjson', 'names an entity or fragment the archive lacks'],
  ['files.ndjson', 'is attached to a fragment the archive lacks'],
];

/**
 * Checks a whole archive before anything is written: the zip (a truncated one has no central
 * directory), the manifest's format and version, each record's fields and each entry's checksum
 * and record count, and the references between records. Throws ArchiveError naming the entry and
 * line of the first problem. Only the manifest, the entries it lists and the files `files.ndjson`
 * names are inflated (none with `skipFiles`); what they declare is checked against `limits` before
 * any of them is inflated, and each is read as a stream, line by line, so the first bad line ends
 * the reading (decision: a bomb costs its declared sizes' check, a bad line what was inflated up
 * to it). Nothing of the records is kept but their ids (decision: an archive of 1 GiB of text
 * would otherwise be held as several GiB of objects): `records` inflates an entry again to be
 * written, and `openFile` a file's bytes.
 */
export async function checkArchive(
  bytes: Uint8Array,
  options: { skipFiles?: boolean; limits?: InflateLimits } = {},
): Promise<CheckedArchive> {
  const entries = listZip(bytes);
  const zip = new ZipInflater(bytes, options.limits ?? ARCHIVE_INFLATE_LIMITS);
  const manifestEntry = entries.get('manifest.json');
  if (!manifestEntry) throw new ArchiveError('no manifest.json', 'manifest.json');
  if (manifestEntry.size > MANIFEST_MAX_BYTES)
    throw new ArchiveError(`larger than ${MANIFEST_MAX_BYTES} bytes`, 'manifest.json');
  let manifest: ArchiveManifest;
  try {
    manifest = JSON.parse(utf8Text(await zip.read(manifestEntry), 'manifest.json')) as ArchiveManifest;
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError('not JSON', 'manifest.json');
  }
  if (manifest?.format !== ARCHIVE_FORMAT) throw new ArchiveError(`format is not ${ARCHIVE_FORMAT}`, 'manifest.json');
  if (manifest.version !== ARCHIVE_VERSION)
    throw new ArchiveError(
      `version ${String(manifest.version)} is not supported (${ARCHIVE_VERSION})`,
      'manifest.json',
    );
  const listed = new Map<EntryName, ZipEntry>();
  for (const name of ENTRY_NAMES) {
    if (!manifest.entries?.[name]) throw new ArchiveError('missing', name);
    const entry = entries.get(name);
    if (!entry) throw new ArchiveError('missing', name);
    listed.set(name, entry);
  }
  // All the entries it will read, by what they declare, before inflating any of them.
  zip.assertWithinTotal(listed.values());
  const references = new References();
  const counts = {} as Record<EntryName, number>;
  /** Of each file, what its bytes are checked against. */
  const files: Array<Pick<ArchivedFile, 'id' | 'sizeBytes' | 'sha256'>> = [];
  for (const name of ENTRY_NAMES) {
    const expected = manifest.entries[name];
    const hash = createHash('sha256');
    const lineOf = references.ids.get(name);
    let count = 0;
    for await (const { text: line, line: number } of ndjsonLines(zip.stream(listed.get(name)!), name, (chunk) =>
      hash.update(chunk),
    )) {
      const record = parseRecord(name, line, number);
      if (lineOf) {
        const recordId = (record as { id: string }).id;
        const first = lineOf.get(recordId);
        if (first !== undefined) throw new ArchiveError(`id ${recordId} is the id of line ${first} too`, name, number);
        lineOf.set(recordId, number);
      }
      if (name === 'collection-fragments.ndjson') {
        // Refused as an id given twice is (decision: an export never repeats one, and a repeated
        // one would cost a write each while adding nothing).
        const first = references.repeatedMembership(record as ArchivedMembership, number);
        if (first !== undefined) throw new ArchiveError(`the membership of line ${first} again`, name, number);
      }
      references.check(name, record, number);
      if (name === 'files.ndjson') {
        const { id: fileId, sizeBytes, sha256: digest } = record as ArchivedFile;
        files.push({ id: fileId, sizeBytes, sha256: digest });
      }
      count++;
    }
    if (hash.digest('hex') !== expected.sha256) throw new ArchiveError('checksum does not match the manifest', name);
    if (count !== expected.records)
      throw new ArchiveError(`${count} records where the manifest says ${expected.records}`, name);
    counts[name] = count;
  }
  references.assertResolved();
  const fileEntries = new Map<string, ZipEntry>();
  const checked: CheckedArchive = {
    manifest,
    counts,
    records: (name) => recordsOf(zip, name, listed.get(name)!),
    openFile: (fileId) => zip.stream(fileEntries.get(fileId)!, { counted: false }),
  };
  if (options.skipFiles) return checked;
  for (const file of files) {
    const name = fileEntry(file.id);
    const entry = entries.get(name);
    if (!entry) throw new ArchiveError('missing', name);
    if (entry.size !== file.sizeBytes) throw new ArchiveError('size or SHA-256 does not match files.ndjson', name);
    fileEntries.set(file.id, entry);
  }
  zip.assertWithinTotal(fileEntries.values());
  for (const file of files) {
    const name = fileEntry(file.id);
    const hash = createHash('sha256');
    for await (const chunk of zip.stream(fileEntries.get(file.id)!)) hash.update(chunk);
    if (hash.digest('hex') !== file.sha256) throw new ArchiveError('size or SHA-256 does not match files.ndjson', name);
  }
  return checked;
}

/** A checked entry's records again, as it inflates (counted once already against the limits). */
async function* recordsOf<K extends EntryName>(
  zip: ZipInflater,
  name: K,
  entry: ZipEntry,
): AsyncGenerator<ArchiveRecords[K][number]> {
  for await (const { text: line, line: number } of ndjsonLines(zip.stream(entry, { counted: false }), name, () => {}))
    yield parseRecord(name, line, number);
}
