import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { create } from '@bufbuild/protobuf';
import {
  AddCollectionFragmentsRequestSchema,
  COLLECTION_FRAGMENT_IDS_MAX,
  CreateCollectionRequestSchema,
  CreateFragmentRequestSchema,
  CreateFragmentTypeRequestSchema,
  DeleteFragmentRequestSchema,
  FilesService,
  ListFragmentTypesRequestSchema,
  UpdateFragmentRequestSchema,
} from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode } from '@kw/platform-errors';
import { isUuid, orderedUuids } from '@kw/platform-ids';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ServiceClient } from '@kw/platform-transport';
import { BLOB_STORAGE, type BlobStorage } from '@kw/platform-storage';
import {
  checkArchive,
  inflateLimits,
  type ArchiveFileReader,
  type ArchivedFile,
  type ArchivedFragment,
  type EntryName,
  type RecordSource,
} from '../../domain/workspace-archive.js';
import { rewriteChangesNothing } from '../../domain/rewrite-changes-nothing.js';
import { BULK_INSERT_ROWS, IMPORT_BATCH_CONTENT_BYTES } from '../../fragments-limits.js';
import { CollectionsRepository } from '../../persistence/collections.repository.js';
import { FragmentsRepository } from '../../persistence/fragments.repository.js';
import type { FragmentRow } from '../../persistence/rows.js';
import { TransfersRepository, type TransferRow } from '../../persistence/transfers.repository.js';
import { readMarkdownFolder, TRIMMED_LISTED_MAX, type TrimmedValue } from './markdown-folder.js';
import { CollectionsHandlers } from '../collections.handlers.js';
import { FragmentErrorCode } from '../fragment-errors.js';
import { FragmentTypesHandlers } from '../fragment-types.handlers.js';
import { FragmentsHandlers } from '../fragments.handlers.js';

/**
 * A write of the import that the platform refused (a plan limit, a key taken meanwhile...), with
 * the place of the record it was writing: the job's error says what and where.
 */
export class ImportWriteError extends Error {
  override readonly name = 'ImportWriteError';

  constructor(
    readonly place: string,
    readonly reason: AppError,
  ) {
    const limit = typeof reason.details?.limit === 'string' ? ` ${reason.details.limit}` : '';
    super(`${place}: ${reason.message} (${reason.code}${limit})`);
  }
}

/** Runs one write, naming `place` in what the platform refuses; other failures pass as they are. */
async function at<T>(place: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    // A refusal; an internal error (a 5xx from another component included) stays one, for the logs.
    throw AppError.isAppError(err) && err.status < 500 ? new ImportWriteError(place, err) : err;
  }
}

/** The job stopped between two records because its process is stopping (the restart's wording). */
export class ImportInterrupted extends Error {
  override readonly name = 'ImportInterrupted';

  constructor() {
    super('interrupted: the process running it stopped');
  }
}

/**
 * A running import as it goes: the records written (`done` of `total`) and the counts of its
 * result so far, so a job that fails is recorded with what it wrote. `stop` is asked after each
 * record: true ends the job there (ImportInterrupted).
 */
export interface ImportTally {
  done: number;
  total: number;
  result: {
    fragmentTypes: number;
    fragments: Counts;
    collections: number;
    collectionFragmentsAdded: number;
    files: { created: number; unchanged: number };
    /** A Markdown folder's values cut to the fragment limits (docs/portable-workspaces.md#markdown-folders). */
    trimmed?: TrimmedValue[];
  };
  stop?: () => boolean;
}

export const newImportTally = (stop?: () => boolean): ImportTally => ({
  done: 0,
  total: 0,
  result: {
    fragmentTypes: 0,
    fragments: { created: 0, updated: 0, unchanged: 0 },
    collections: 0,
    collectionFragmentsAdded: 0,
    files: { created: 0, unchanged: 0 },
  },
  stop,
});

/** Progress is written at most this often (in records), not after each one. */
const PROGRESS_EVERY = 25;

type Counts = Record<'created' | 'updated' | 'unchanged', number>;

/** Where a record is, for a job's error (RecordSource.placeOf). */
type Place = (entry: EntryName, line: number, recordId: string) => string;

/**
 * A checked archive: its records to read again as they are written (only their counts and ids
 * are held), a way to read each file's bytes again, and a Markdown folder's cuts.
 */
export interface LoadedArchive {
  source: RecordSource;
  openFile: ArchiveFileReader;
  trimmed?: TrimmedValue[];
}

/** A source without its files (skipFiles): none counted, none read. */
const withoutFiles = (source: RecordSource): RecordSource => ({
  counts: { ...source.counts, 'files.ndjson': 0 },
  records: (name) => (name === 'files.ndjson' ? (async function* () {})() : source.records(name)),
});

const NO_FILES: ArchiveFileReader = (fileId) => {
  throw new Error(`no file ${fileId} in a Markdown folder`);
};

/**
 * Imports an archive into a workspace (docs/portable-workspaces.md). The whole archive is read
 * and checked first (checkArchive), so a damaged one fails before anything is written, keeping
 * nothing of its records but their ids. Then it is read again, and types (matched by key),
 * fragments, collections, memberships and files are written as they are read, through the same
 * handlers as the API, as the person who started the job. What each archived record became is kept, so
 * importing the same archive again finds it: unchanged records stay as they are, changed ones
 * are updated, and nothing is created twice. Graph entities and relations are not written: the
 * enrichment of the imported fragments derives them again.
 */
@Injectable()
export class WorkspaceImport {
  constructor(
    private readonly transfers: TransfersRepository,
    private readonly fragmentRows: FragmentsRepository,
    private readonly collectionRows: CollectionsRepository,
    private readonly types: FragmentTypesHandlers,
    private readonly fragments: FragmentsHandlers,
    private readonly collections: CollectionsHandlers,
    private readonly client: ServiceClient,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Reads and checks the archive: throws ArchiveError (entry and line) before any write. */
  async load(job: TransferRow, options: { skipFiles: boolean; format: string }): Promise<LoadedArchive> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.storage.get(job.archiveKey!)) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const limits = inflateLimits(this.config.IMPORT_MAX_INFLATED_BYTES);
    if (options.format === 'markdown') {
      const { source, trimmed } = await readMarkdownFolder(bytes, new Date(), limits);
      return { source, openFile: NO_FILES, trimmed: trimmed.slice(0, TRIMMED_LISTED_MAX) };
    }
    const checked = await checkArchive(bytes, { skipFiles: options.skipFiles, limits });
    if (options.skipFiles) return { source: withoutFiles(checked), openFile: checked.openFile };
    const fileCount = checked.counts['files.ndjson'];
    // A Leaf serves no files (Hosted Zone V1): say which, before anything is written.
    if (fileCount > 0 && this.config.CLOUD_URL) {
      const names: string[] = [];
      for await (const file of checked.records('files.ndjson')) if (names.push(file.name) === 10) break;
      throw new AppError({
        status: 409,
        code: ErrorCode.FILES_UNSUPPORTED_IN_HOSTED_ZONE,
        message: `This hosted zone does not keep files; the archive holds ${fileCount}: ${names.join(', ')}${
          fileCount > 10 ? ', ...' : ''
        }. Import with skipFiles=true to leave them behind`,
      });
    }
    return { source: checked, openFile: checked.openFile };
  }

  /** The uploaded archive is not kept once its job ended, imported or not (it may be large). */
  async discardArchive(job: TransferRow): Promise<void> {
    if (job.archiveKey) await this.storage.delete(job.archiveKey);
  }

  async run(
    job: TransferRow,
    archive: LoadedArchive,
    context: RequestContext,
    tally: ImportTally = newImportTally(),
  ): Promise<TransferRow | null> {
    const ws = job.workspaceId;
    const { source } = archive;
    const counts = tally.result;
    if (archive.trimmed) counts.trimmed = archive.trimmed;
    const { counts: sizes } = source;
    const total = (tally.total =
      sizes['fragment-types.ndjson'] +
      sizes['fragments.ndjson'] +
      sizes['collections.ndjson'] +
      sizes['collection-fragments.ndjson'] +
      sizes['files.ndjson']);
    // After each record written: progress, and the place where a stopping process ends the job.
    const step = async () => {
      const done = ++tally.done;
      if (done % PROGRESS_EVERY === 0 || done === total) await this.transfers.progress(job.id, done, total);
      if (tally.stop?.()) throw new ImportInterrupted();
    };
    await this.transfers.progress(job.id, 0, total);

    /** Where a record is, for the job's error: its line, or the source's own place (a note's path). */
    const place = (entry: EntryName, line: number, recordId: string) =>
      source.placeOf?.(entry, recordId) ?? `${entry} line ${line}`;
    const typeIds = await this.importTypes(ws, source, context, place, async () => {
      counts.fragmentTypes++;
      await step();
    });
    const fragmentCounts = counts.fragments;
    const fragmentIds = new Map<string, string>();
    const known = await this.transfers.importedIds(ws, 'fragment');
    const seen = { keys: new Set<string>(), ids: new Set<string>() };
    // Fragments a refused batch wrote before the refusal count as written (the job fails with the refusal).
    const admitted = () => {
      fragmentCounts.created++;
      tally.done++;
    };
    // Written as they are read again, a hundred at a time, fewer when their content passes
    // IMPORT_BATCH_CONTENT_BYTES: what is held is one batch, whatever the archive holds.
    let batch: ArchivedFragment[] = [];
    let batchBytes = 0;
    let firstLine = 1;
    const writeBatch = async () => {
      const imported = await this.importFragments(ws, batch, firstLine, typeIds, known, seen, context, admitted, place);
      for (const [i, { id, outcome }] of imported.entries()) {
        fragmentIds.set(batch[i].id, id);
        fragmentCounts[outcome]++;
        await step();
      }
      firstLine += batch.length;
      batch = [];
      batchBytes = 0;
    };
    for await (const fragment of source.records('fragments.ndjson')) {
      batch.push(fragment);
      batchBytes += Buffer.byteLength(fragment.content);
      if (batch.length === BULK_INSERT_ROWS || batchBytes >= IMPORT_BATCH_CONTENT_BYTES) await writeBatch();
    }
    if (batch.length > 0) await writeBatch();
    const collectionIds = await this.importCollections(ws, source, context, place, async () => {
      counts.collections++;
      await step();
    });
    // Memberships per collection (by its archived id), in requests of the add route's maximum.
    const byCollection = new Map<string, string[]>();
    for await (const m of source.records('collection-fragments.ndjson')) {
      const ids = byCollection.get(m.collectionId) ?? byCollection.set(m.collectionId, []).get(m.collectionId)!;
      ids.push(fragmentIds.get(m.fragmentId)!);
    }
    for (const [archivedId, ids] of byCollection) {
      const collectionId = collectionIds.get(archivedId)!;
      const where =
        source.placeOf?.('collection-fragments.ndjson', archivedId) ??
        `collection-fragments.ndjson, collection ${collectionId}`;
      for (let i = 0; i < ids.length; i += COLLECTION_FRAGMENT_IDS_MAX) {
        const slice = ids.slice(i, i + COLLECTION_FRAGMENT_IDS_MAX);
        const input = create(AddCollectionFragmentsRequestSchema, {
          workspaceId: ws,
          collectionId,
          fragmentIds: slice,
        });
        counts.collectionFragmentsAdded += (await at(where, () => this.collections.add(input, context))).added;
        for (const _ of slice) await step();
      }
    }
    const fileCounts = counts.files;
    let fileLine = 0;
    for await (const file of source.records('files.ndjson')) {
      const created = await at(`files.ndjson line ${++fileLine}`, () =>
        this.importFile(job, file, archive.openFile(file.id), fragmentIds),
      );
      fileCounts[created ? 'created' : 'unchanged']++;
      await step();
    }
    return this.transfers.finish(job.id, {
      status: 'done',
      result: {
        fragmentTypes: typeIds.size,
        fragments: fragmentCounts,
        collections: collectionIds.size,
        collectionFragmentsAdded: counts.collectionFragmentsAdded,
        files: fileCounts,
        ...(archive.trimmed && { trimmed: archive.trimmed }),
      },
    });
  }

  /** Archived type id → the workspace's type with the same key (created when missing). */
  private async importTypes(
    ws: string,
    source: RecordSource,
    context: RequestContext,
    place: Place,
    step: () => Promise<void>,
  ): Promise<Map<string, string>> {
    const listed = await this.types.list(create(ListFragmentTypesRequestSchema, { workspaceId: ws }), context);
    const byKey = new Map(listed.fragmentTypes.map((t) => [t.key, t.id]));
    const ids = new Map<string, string>();
    let line = 0;
    for await (const type of source.records('fragment-types.ndjson')) {
      line++;
      let id = byKey.get(type.key);
      if (!id) {
        const made = await at(place('fragment-types.ndjson', line, type.id), () =>
          this.types.create(
            create(CreateFragmentTypeRequestSchema, {
              workspaceId: ws,
              key: type.key,
              name: type.name,
              description: type.description,
            }),
            context,
          ),
        );
        id = made.fragmentType.id!;
        byKey.set(type.key, id);
      }
      ids.set(type.id, id);
      await this.transfers.recordImported(ws, 'type', type.id, id);
      await step();
    }
    return ids;
  }

  /**
   * Archived fragments, imported as `importFragment` would import each in turn, in fewer writes:
   * those new to the workspace (no fragment there from an earlier import of the same record, nor
   * with the same key, and no earlier record of this archive with the key) are created together
   * (`createMany`: a statement per hundred, like a bulk write); the others, and any whose key was
   * taken meanwhile, follow one at a time. Each record's fragment id and outcome, in order.
   */
  private async importFragments(
    ws: string,
    batch: readonly ArchivedFragment[],
    firstLine: number,
    typeIds: Map<string, string>,
    known: Map<string, string>,
    seen: { keys: Set<string>; ids: Set<string> },
    context: RequestContext,
    admitted: () => void,
    place: Place,
  ): Promise<Array<{ id: string; outcome: keyof Counts }>> {
    const knownIds = batch.flatMap((f) => known.get(f.id) ?? []);
    const archivedIds = batch.map((f) => f.id).filter(isUuid);
    const [taken, keyHolders, own] = await Promise.all([
      this.fragmentRows.takenIds([...new Set([...knownIds, ...archivedIds])]),
      this.fragmentRows.idsByKeys(ws, [...new Set(batch.flatMap((f) => f.key ?? []))]),
      this.fragmentRows.existingIds(ws, archivedIds).then((ids) => new Set(ids)),
    ]);
    const fresh: number[] = [];
    const inTurn: number[] = [];
    for (const [i, f] of batch.entries()) {
      const knownId = known.get(f.id);
      // A fragment of this workspace with the archived id is that record: the workspace's own
      // export coming back, or an import that kept the id.
      const there =
        (knownId && taken.has(knownId)) || own.has(f.id) || (f.key && (keyHolders.has(f.key) || seen.keys.has(f.key)));
      (there ? inTurn : fresh).push(i);
      if (f.key) seen.keys.add(f.key);
    }
    const newIds = orderedUuids(fresh.length); // in archive order, as createMany's own would be
    const planned: Array<{ sourceId: string; targetId: string }> = [];
    const inputs = fresh.map((i, n) => {
      const f = batch[i];
      // Its id is kept where no fragment has it (another plane, or after a move's purge): links survive a move.
      const keepId = isUuid(f.id) && !taken.has(f.id) && !seen.ids.has(f.id);
      seen.ids.add(f.id);
      const id = keepId ? f.id : newIds[n];
      planned.push({ sourceId: f.id, targetId: id });
      return createRequestOf(ws, f, typeIds.get(f.fragmentTypeId)!, id);
    });
    // What each will become is kept before it is written: a process stopped between the write and
    // this record would otherwise leave fragments the next import does not find, and makes again.
    // A record whose write is refused keeps a target that does not exist, which finds nothing.
    await this.transfers.recordImportedMany(ws, 'fragment', planned);
    const created = await this.fragments.createMany(ws, inputs, context);

    const results: Array<{ id: string; outcome: keyof Counts }> = [];
    let refused: ImportWriteError | undefined;
    for (const [n, i] of fresh.entries()) {
      const result = created[n];
      if (!AppError.isAppError(result)) {
        results[i] = { id: result.id, outcome: 'created' };
      } else if (result.code === FragmentErrorCode.KEY_EXISTS) inTurn.push(i);
      else refused ??= new ImportWriteError(place('fragments.ndjson', firstLine + i, batch[i].id), result);
    }
    // A record the workspace may not take fails the import, as a create would have one by one;
    // those the batch wrote before it are written all the same.
    if (refused) {
      for (const result of created) if (!AppError.isAppError(result)) admitted();
      throw refused;
    }
    for (const [i, f] of batch.entries())
      if (results[i] && f.archivedAt)
        await this.fragments.delete(create(DeleteFragmentRequestSchema, { fragmentId: results[i].id }), context);
    for (const i of inTurn.sort((a, b) => a - b))
      results[i] = await at(place('fragments.ndjson', firstLine + i, batch[i].id), () =>
        this.importFragment(ws, batch[i], typeIds, known, context),
      );
    return results;
  }

  private async importFragment(
    ws: string,
    f: ArchivedFragment,
    typeIds: Map<string, string>,
    known: Map<string, string>,
    context: RequestContext,
  ): Promise<{ id: string; outcome: keyof Counts }> {
    const fragmentTypeId = typeIds.get(f.fragmentTypeId)!;
    const knownId = known.get(f.id);
    const inWorkspace = async (id: string) => {
      const row = await this.fragmentRows.findById(id);
      return row?.workspaceId === ws ? row : undefined;
    };
    // What an earlier import made of it, the fragment of this workspace with its id, or its key's.
    const existing =
      (knownId && (await inWorkspace(knownId))) ||
      (isUuid(f.id) && (await inWorkspace(f.id))) ||
      (f.key ? await this.fragmentRows.findByKey(ws, f.key) : undefined);
    if (existing) {
      if (sameContent(existing, f, fragmentTypeId)) {
        if (knownId !== existing.id) await this.transfers.recordImported(ws, 'fragment', f.id, existing.id);
        return { id: existing.id, outcome: 'unchanged' };
      }
      await this.fragments.update(
        create(UpdateFragmentRequestSchema, {
          fragmentId: existing.id,
          fragmentTypeId,
          title: f.title,
          content: f.content,
          summary: f.summary ?? '',
          tagsSupplied: true,
          tags: f.tags,
          enhanceTags: f.enhanceTags,
          expectedVersion: existing.version,
        }),
        context,
      );
      await this.transfers.recordImported(ws, 'fragment', f.id, existing.id);
      return { id: existing.id, outcome: 'updated' };
    }
    // Its id is kept where no fragment has it (another plane, or after a move's purge): links survive
    // a move. Recorded before the write, as in importFragments.
    const id = isUuid(f.id) && !(await this.fragmentRows.findById(f.id)) ? f.id : randomUUID();
    await this.transfers.recordImported(ws, 'fragment', f.id, id);
    await this.fragments.create(createRequestOf(ws, f, fragmentTypeId, id), context);
    if (f.archivedAt) await this.fragments.delete(create(DeleteFragmentRequestSchema, { fragmentId: id }), context);
    return { id, outcome: 'created' };
  }

  /**
   * A file, made by the files component (ImportFile) from bytes staged in this job's own blob
   * area, attached to its imported fragments; true when it was created, false when the
   * workspace had it already (same name and SHA-256).
   */
  private async importFile(
    job: TransferRow,
    file: ArchivedFile,
    bytes: AsyncIterable<Uint8Array>,
    fragmentIds: Map<string, string>,
  ): Promise<boolean> {
    // checkArchive refused any id blob storage would not take (the blob-key rule), before any write.
    const stagedKey = `transfers/${job.workspaceId}/${job.id}-files/${file.id}`;
    await this.storage.put(stagedKey, Readable.from(bytes));
    try {
      const { created } = await this.client.call(FilesService.method.importFile, {
        workspaceId: job.workspaceId,
        stagedKey,
        fileName: file.name,
        description: file.description,
        mimeType: file.mimeType,
        kind: file.kind,
        sizeBytes: BigInt(file.sizeBytes),
        sha256: file.sha256,
        fragmentIds: file.fragmentIds.map((id) => fragmentIds.get(id)!),
      });
      return created;
    } finally {
      await this.storage.delete(stagedKey);
    }
  }

  /** Archived collection id → the collection an earlier import made, or a new one. */
  private async importCollections(
    ws: string,
    source: RecordSource,
    context: RequestContext,
    place: Place,
    step: () => Promise<void>,
  ): Promise<Map<string, string>> {
    const known = await this.transfers.importedIds(ws, 'collection');
    const ids = new Map<string, string>();
    let line = 0;
    for await (const c of source.records('collections.ndjson')) {
      line++;
      const knownId = known.get(c.id);
      // What an earlier import made of it, or the collection of this workspace with its id (its own export).
      let id =
        (knownId && (await this.collectionRows.findInWorkspace(ws, knownId))?.id) ||
        (isUuid(c.id) && (await this.collectionRows.findInWorkspace(ws, c.id))?.id);
      if (id && id !== knownId) await this.transfers.recordImported(ws, 'collection', c.id, id);
      if (!id) {
        // Recorded before it is made: a process stopped in between leaves nothing the next import misses.
        const target = isUuid(c.id) && !(await this.collectionRows.exists(c.id)) ? c.id : randomUUID();
        await this.transfers.recordImported(ws, 'collection', c.id, target);
        const made = await at(place('collections.ndjson', line, c.id), async () =>
          this.collections.create(
            create(CreateCollectionRequestSchema, {
              workspaceId: ws,
              name: c.name,
              description: c.description,
              id: target,
            }),
            context,
          ),
        );
        id = made.collection!.id!;
      }
      ids.set(c.id, id);
      await step();
    }
    return ids;
  }
}

/** Whether importing the record again would change nothing (the bulk upsert's rule). */
function sameContent(row: FragmentRow, f: ArchivedFragment, fragmentTypeId: string): boolean {
  return rewriteChangesNothing(row, { ...f, fragmentTypeId });
}

/** The create of an archived fragment: summaries and tags are kept as archived, never generated anew. */
function createRequestOf(ws: string, f: ArchivedFragment, fragmentTypeId: string, id: string | undefined) {
  return create(CreateFragmentRequestSchema, {
    workspaceId: ws,
    fragmentTypeId,
    title: f.title,
    content: f.content,
    summary: f.summary ?? undefined,
    tagsSupplied: true,
    tags: f.tags,
    enhanceTags: f.enhanceTags,
    createdVia: f.createdVia, // one of CREATED_VIA: checkArchive refused any other
    key: f.key ?? undefined,
    id,
  });
}
