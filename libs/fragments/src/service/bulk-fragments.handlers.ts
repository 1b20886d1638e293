import { Injectable } from '@nestjs/common';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import {
  BULK_FRAGMENTS_MAX,
  CreateFragmentRequestSchema,
  FragmentsService,
  limitViolations,
  UpdateFragmentRequestSchema,
  type BulkItemOutcomeSchema,
  type CreateFragmentRequest,
} from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { rewriteChangesNothing } from '../domain/rewrite-changes-nothing.js';
import { FragmentsRepository } from '../persistence/fragments.repository.js';
import type { FragmentRow } from '../persistence/rows.js';
import { FragmentsHandlers } from './fragments.handlers.js';
import { WorkspaceGate } from './workspace-gate.js';

type Outcome = MessageInitShape<typeof BulkItemOutcomeSchema>;

/**
 * Many fragments in one request (docs/fragments.md#bulk-writes), for importers: each item is
 * created (or, with upsert, updated by its key) exactly as the single routes would, and each
 * gets its own outcome; a failed item leaves nothing of itself and does not stop the rest. The
 * workspace is authorized once, up front, so a request the caller may not make fails as a whole.
 *
 * The outcomes are those of writing the items one after the other, in order; the writes are
 * not. Items that create a fragment under a key nobody holds (or under none) are created
 * together (`createMany`: a statement per hundred instead of one each). Items whose key the
 * workspace held before the request, and that no other item names, touch one fragment each
 * that nothing else of the request touches: they are written UPSERT_CONCURRENCY at a time, from
 * the holders read up front (one statement for every key of the request). The rest (a key several items name) follow one at a time, in
 * order, where each sees what the items before it wrote.
 */
@Injectable()
export class BulkFragmentsHandlers {
  constructor(
    private readonly single: FragmentsHandlers,
    private readonly fragments: FragmentsRepository,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(FragmentsService.method.bulkWriteFragments)
  async bulkWrite(input: RequestOf<typeof FragmentsService, 'bulkWriteFragments'>, context: RequestContext) {
    // Limits are enforced again here (serve() checks MESSAGE_LIMITS); no items at all is allowed:
    // the edge sends none when every item failed its validation, and the caller is still authorized.
    if (input.items.length > BULK_FRAGMENTS_MAX)
      throw new AppError({
        status: 400,
        code: ErrorCode.VALIDATION_FAILED,
        message: `items: at most ${BULK_FRAGMENTS_MAX} fragments`,
        param: 'items',
      });
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:write');
    const items = input.items.map((item) => ({
      index: item.index,
      fragment: { ...item.fragment!, workspaceId } as CreateFragmentRequest,
    }));
    const outcomes: Outcome[] = [];
    // The keys' holders before the request, read once: which items create, and an upsert's rows.
    const taken = await this.fragments.findManyByKeys(workspaceId, [
      ...new Set(items.flatMap((item) => (item.fragment.key ? [item.fragment.key] : []))),
    ]);
    const written = new Set<string>();
    const fresh: number[] = [];
    const inTurn: number[] = [];
    const named = new Map<string, number>();
    for (const { fragment } of items) if (fragment.key) named.set(fragment.key, (named.get(fragment.key) ?? 0) + 1);
    for (const [at, { index, fragment }] of items.entries()) {
      // The field limits serve() applies to CreateFragment, applied to each item.
      const invalid = limitViolations(CreateFragmentRequestSchema.typeName, fragment)[0];
      if (invalid) {
        outcomes[at] = failed(index, invalidField(invalid.field, invalid.problems.join('; ')));
        continue;
      }
      const key = fragment.key;
      (key && (taken.has(key) || written.has(key)) ? inTurn : fresh).push(at);
      if (key) written.add(key);
    }

    const created = await this.single.createMany(
      workspaceId,
      fresh.map((at) => items[at].fragment),
      context,
    );
    for (const [n, at] of fresh.entries()) {
      const result = created[n];
      outcomes[at] = AppError.isAppError(result)
        ? failed(items[at].index, result)
        : { index: items[at].index, status: 'created', fragmentId: result.id };
    }
    const keyOf = (at: number) => items[at].fragment.key ?? '';
    const alone = (at: number) => taken.has(keyOf(at)) && named.get(keyOf(at)) === 1;
    await forEachConcurrently(inTurn.filter(alone), UPSERT_CONCURRENCY, async (at) => {
      const { index, fragment } = items[at];
      outcomes[at] = await this.writeOne(index, fragment, input.upsert, context, taken.get(keyOf(at)) ?? null);
    });
    for (const at of inTurn.filter((at) => !alone(at)))
      outcomes[at] = await this.writeOne(items[at].index, items[at].fragment, input.upsert, context);
    return { outcomes };
  }

  /** An item whose key the workspace or an earlier item holds: an upsert's update, or a create. */
  private async writeOne(
    index: number,
    item: CreateFragmentRequest,
    upsert: boolean,
    context: RequestContext,
    /** The key's holder when the caller read it already (null: it holds none any more). */
    known?: FragmentRow | null,
  ): Promise<Outcome> {
    try {
      const existing =
        upsert && item.key
          ? known !== undefined
            ? (known ?? undefined)
            : await this.fragments.findByKey(item.workspaceId, item.key)
          : undefined;
      if (existing) {
        if (unchanged(existing, item)) return { index, status: 'unchanged', fragmentId: existing.id };
        const { fragment } = await this.single.update(
          create(UpdateFragmentRequestSchema, {
            fragmentId: existing.id,
            fragmentTypeId: item.fragmentTypeId,
            title: item.title,
            content: item.content,
            summary: item.summary,
            tagsSupplied: item.tagsSupplied,
            tags: item.tags,
            enhanceTags: item.enhanceTags,
            // Written over the version just read: an edit in between fails this item (VERSION_CONFLICT).
            expectedVersion: existing.version,
          }),
          context,
        );
        return { index, status: 'updated', fragmentId: fragment!.id };
      }
      const { fragment } = await this.single.create(item, context);
      return { index, status: 'created', fragmentId: fragment.id };
    } catch (err) {
      if (!AppError.isAppError(err)) throw err;
      return failed(index, err);
    }
  }
}

/** Upserted items written at once (each a read and a versioned update: round trips, not CPU). */
const UPSERT_CONCURRENCY = 8;

async function forEachConcurrently<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function failed(index: number, err: AppError): Outcome {
  return {
    index,
    status: 'failed',
    errorStatus: err.status,
    errorCode: err.code,
    errorMessage: err.message,
    errorParam: err.param ?? '',
    existingId: typeof err.details?.existingId === 'string' ? err.details.existingId : '',
  };
}

/** Re-importing the same item writes nothing: what it sets already holds. */
function unchanged(row: FragmentRow, item: CreateFragmentRequest): boolean {
  return rewriteChangesNothing(row, {
    title: item.title,
    content: item.content,
    fragmentTypeId: item.fragmentTypeId,
    summary: item.summary,
    tags: item.tagsSupplied ? item.tags : undefined,
    enhanceTags: item.enhanceTags,
  });
}
