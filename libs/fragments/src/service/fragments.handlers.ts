import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { FragmentsService, type CreateFragmentRequest } from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AccountLimits, LimitNotices } from '@kw/platform-entitlements';
import { AppError, isForeignKeyViolation } from '@kw/platform-errors';
import { isUuid, orderedUuids } from '@kw/platform-ids';
import type { NewOutboxEvent } from '@kw/platform-outbox';
import { APP_CONFIG } from '@kw/platform-runtime';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { fragmentChangedEvent } from '../events/fragment-events.js';
import {
  CREATED_VIA,
  BULK_INSERT_ROWS,
  FRAGMENT_CONTENT_MAX_BYTES,
  FRAGMENT_LIST_BATCH,
  FRAGMENT_LIST_LIMIT_DEFAULT,
} from '../fragments-limits.js';
import { isUniqueViolation } from '../persistence/unique-violation.js';
import { FragmentTypesRepository } from '../persistence/fragment-types.repository.js';
import { FragmentsRepository, type FragmentFilter, type FragmentOrder } from '../persistence/fragments.repository.js';
import type { FragmentRow } from '../persistence/rows.js';
import { enrichmentNeeds, pendingEnrichment } from './enrichment/enrichment-state.js';
import {
  ownersOnly,
  fragmentLimitReached,
  fragmentNotFound,
  invalidFragmentType,
  invalidInput,
  keyExists,
  versionConflict,
} from './fragment-errors.js';
import { assertContentSize, normalizeTags } from './fragment-fields.js';
import { FragmentQuota } from './fragment-quota.js';
import { fragmentView } from './fragment-view.js';
import { planUpdate } from './fragment-update.js';
import { allowedSteps } from './workspace-enrichment.js';
import { WorkspaceGate, type Gate } from './workspace-gate.js';

const SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', title: 'title' } as const;

/** Memory fragments: create, list, get, update (fields and patch operations), archive and delete. */
@Injectable()
export class FragmentsHandlers {
  private readonly quota: FragmentQuota;

  constructor(
    private readonly fragments: FragmentsRepository,
    private readonly types: FragmentTypesRepository,
    private readonly gate: WorkspaceGate,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limits: AccountLimits,
    private readonly notices: LimitNotices,
  ) {
    this.quota = new FragmentQuota(fragments);
  }

  @Handles(FragmentsService.method.createFragment)
  async create(input: RequestOf<typeof FragmentsService, 'createFragment'>, context: RequestContext) {
    const author = await this.gate.authorize(context, input.workspaceId, 'fragments:write');
    const { workspaceId } = author;
    assertCreatable(input);
    await this.assertTypeOf(workspaceId, input.fragmentTypeId);
    const cap = await this.fragmentCap(author.planHolderId);
    const decision = await this.quota.decide(workspaceId, cap.max, 1);
    // An import keeps the archived id (it checked that no fragment has it).
    const { row, event } = newFragment(input, author, input.id && isUuid(input.id) ? input.id : randomUUID(), context);
    let counted = decision.near ? undefined : decision.counted;
    try {
      if (decision.near) {
        const { written, count } = await this.fragments.insertWithinLimit(workspaceId, [row], [event], cap.max);
        this.quota.remember(workspaceId, count);
        if (written === 0) throw pastTheCap(cap);
        counted = count;
      } else await this.fragments.insertWithEvent(row, event);
    } catch (error) {
      // The unique (workspace_id, key) decides between concurrent creates: exactly one wins.
      if (isUniqueViolation(error) && input.key !== undefined) throw await this.keyConflict(workspaceId, input.key);
      // The type was deleted between its check and this insert (the delete counted no fragment of it).
      if (isForeignKeyViolation(error)) throw invalidFragmentType();
      throw error;
    }
    if (cap.plan && counted !== undefined)
      await this.notices.observe(workspaceId, 'fragmentsPerWorkspace', counted, cap.plan);
    return { fragment: fragmentView(row) };
  }

  /**
   * Creates each of `inputs` in the workspace exactly as `create` would (the same checks, limits,
   * events and enrichment), but writes those that pass BULK_INSERT_ROWS at a time, each group in
   * one statement: one round trip and one commit for many (bulk writes; docs/fragments.md). One
   * result per input, in order: the row written, or the AppError that refused it. The ids sort in
   * the inputs' order, so fragments created in one call list in that order (created_at ties).
   */
  async createMany(
    workspaceId: string,
    inputs: readonly CreateFragmentRequest[],
    context: RequestContext,
  ): Promise<Array<FragmentRow | AppError>> {
    const author = await this.gate.authorize(context, workspaceId, 'fragments:write');
    const results: Array<FragmentRow | AppError> = [];
    const typeFound = new Map<string, boolean>();
    const admitted: number[] = [];
    for (const [i, input] of inputs.entries()) {
      try {
        assertCreatable(input);
        if (!typeFound.has(input.fragmentTypeId))
          typeFound.set(input.fragmentTypeId, await this.typeIn(author.workspaceId, input.fragmentTypeId));
        if (!typeFound.get(input.fragmentTypeId)) throw invalidFragmentType();
        admitted.push(i);
      } catch (error) {
        if (!AppError.isAppError(error)) throw error;
        results[i] = error;
      }
    }
    if (admitted.length === 0) return results;

    const cap = await this.fragmentCap(author.planHolderId);
    const decision = await this.quota.decide(author.workspaceId, cap.max, admitted.length);
    const limit = decision.near ? { max: cap.max, refusal: () => pastTheCap(cap) } : undefined;
    const now = new Date();
    const ids = orderedUuids(admitted.length, now.getTime());
    const made = admitted.map((i, n) => {
      const id = inputs[i].id && isUuid(inputs[i].id) ? inputs[i].id! : ids[n];
      return { index: i, ...newFragment(inputs[i], author, id, context, now) };
    });
    // Each created one's count with it, for the plan's notices (near the limit, or just counted).
    const counts = new Map<number, number>();
    for (let start = 0; start < made.length; start += BULK_INSERT_ROWS)
      await this.insertGroup(author.workspaceId, made.slice(start, start + BULK_INSERT_ROWS), results, limit, counts);
    if (!decision.near && decision.counted !== undefined)
      for (const [n, m] of made.entries()) counts.set(m.index, decision.counted - made.length + n + 1);
    // The notices as one create after another would observe them: each created one at its count.
    if (cap.plan)
      for (const m of made)
        if (!AppError.isAppError(results[m.index]) && counts.has(m.index))
          await this.notices.observe(author.workspaceId, 'fragmentsPerWorkspace', counts.get(m.index)!, cap.plan);
    return results;
  }

  @Handles(FragmentsService.method.listFragments)
  async list(input: RequestOf<typeof FragmentsService, 'listFragments'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:read');
    const filter: FragmentFilter = {
      workspaceId,
      id: input.id,
      fragmentTypeId: input.fragmentTypeId,
      status: input.status,
      key: input.key,
      tags: input.tags.length > 0 ? normalizeTags(input.tags) : undefined,
      includeArchived: input.includeArchived,
    };
    // The id breaks ties so that offset paging is stable; with createdAt asc (the default)
    // new records land at the end and a walk by offset sees every record once.
    const order: FragmentOrder = {
      field: SORT_FIELDS[input.sort as keyof typeof SORT_FIELDS] ?? 'createdAt',
      order: input.order === 'desc' ? 'desc' : 'asc',
    };
    const limit = input.limit || FRAGMENT_LIST_LIMIT_DEFAULT;
    const [totalCount, rows] = await Promise.all([
      this.fragments.countMatching(filter),
      this.pageWithinBytes(filter, order, limit, input.offset),
    ]);
    return { items: rows.map(fragmentView), totalCount };
  }

  /**
   * Up to `limit` rows from `offset`, read in batches, stopping once the page holds
   * LIST_PAGE_MAX_BYTES of text (always at least one row): 500 fragments at the content maximum
   * would be 500 MB, so the documented maximum page then always fits what the transport
   * carries (64 MiB), and memory stays bounded. A short page is read like any other: clients
   * page on by its `count`.
   */
  private async pageWithinBytes(
    filter: FragmentFilter,
    order: FragmentOrder,
    limit: number,
    offset: number,
  ): Promise<FragmentRow[]> {
    const page: FragmentRow[] = [];
    let bytes = 0;
    while (page.length < limit) {
      const take = Math.min(FRAGMENT_LIST_BATCH, limit - page.length);
      const batch = await this.fragments.findMatching(filter, order, take, offset + page.length);
      for (const row of batch) {
        const size =
          Buffer.byteLength(row.content) + Buffer.byteLength(row.title) + Buffer.byteLength(row.summary ?? '');
        if (page.length > 0 && bytes + size > this.config.LIST_PAGE_MAX_BYTES) return page;
        page.push(row);
        bytes += size;
      }
      if (batch.length < take) break;
    }
    return page;
  }

  @Handles(FragmentsService.method.getFragment)
  async get(input: RequestOf<typeof FragmentsService, 'getFragment'>, context: RequestContext) {
    const fragment = await this.load(input.fragmentId);
    await this.gate.authorize(context, fragment.workspaceId, 'fragments:read', { hiddenAs: fragmentNotFound });
    return { fragment: fragmentView(fragment) };
  }

  @Handles(FragmentsService.method.updateFragment)
  async update(input: RequestOf<typeof FragmentsService, 'updateFragment'>, context: RequestContext) {
    const current = await this.load(input.fragmentId);
    const author = await this.gate.authorize(context, current.workspaceId, 'fragments:write', {
      resourceOwnerId: current.createdBy,
      hiddenAs: fragmentNotFound,
    });
    if (input.expectedVersion > 0 && input.expectedVersion !== current.version) throw versionConflict(current.version);
    if (input.fragmentTypeId !== undefined && input.fragmentTypeId !== current.fragmentTypeId)
      await this.assertTypeOf(author.workspaceId, input.fragmentTypeId);

    const plan = (row: FragmentRow) => {
      const { changes, needs } = planUpdate(row, input, author, new Date());
      const eventOf = (updated: FragmentRow) => fragmentChangedEvent(context, 'fragment.updated', updated, needs);
      return { changes, eventOf };
    };
    try {
      const first = plan(current);
      let result = await this.fragments.updateWithEvent(current, first.changes, first.eventOf);
      // Without a version the update applies to whatever is current: one that lost the race to
      // another write is planned again over the row, locked this time, so no write is lost.
      if (!result.updated && !('gone' in result) && input.expectedVersion === 0)
        result = await this.fragments.updateLatestWithEvent(current.id, plan);
      // Someone else's update or permanent delete landed between the read and this write.
      if (!result.updated) throw 'gone' in result ? fragmentNotFound() : versionConflict(result.currentVersion);
      return { fragment: fragmentView(result.row) };
    } catch (error) {
      if (isUniqueViolation(error) && input.key) throw await this.keyConflict(author.workspaceId, input.key);
      if (isForeignKeyViolation(error)) throw invalidFragmentType();
      throw error;
    }
  }

  @Handles(FragmentsService.method.deleteFragment)
  async delete(input: RequestOf<typeof FragmentsService, 'deleteFragment'>, context: RequestContext) {
    const current = await this.load(input.fragmentId);
    const { relation } = await this.gate.authorize(context, current.workspaceId, 'fragments:delete', {
      resourceOwnerId: current.createdBy,
      hiddenAs: fragmentNotFound,
    });
    if (input.permanent && relation !== 'owner') throw ownersOnly();
    let row: FragmentRow | undefined = current;
    // A concurrent permanent delete that landed first answers 404, as it would a moment later.
    if (input.permanent) {
      const deleted = await this.fragments.deleteWithEvent(
        current,
        fragmentChangedEvent(context, 'fragment.deleted', current, [], { permanent: true }),
      );
      if (!deleted) throw fragmentNotFound();
    } else if (!current.archivedAt)
      row = await this.fragments.archiveWithEvent(current, (archived) =>
        fragmentChangedEvent(context, 'fragment.deleted', archived, []),
      );
    if (!row) throw fragmentNotFound();
    return { fragment: fragmentView(row) };
  }

  @Handles(FragmentsService.method.checkFragmentLimits)
  async checkLimits(input: RequestOf<typeof FragmentsService, 'checkFragmentLimits'>, context: RequestContext) {
    const { workspaceId, planHolderId } = await this.gate.authorize(context, input.workspaceId, 'fragments:read');
    const { max, plan, byPlan } = await this.fragmentCap(planHolderId);
    const currentCount = await this.fragments.countInWorkspace(workspaceId);
    return {
      maxFragmentsPerWorkspace: max,
      maxContentBytes: FRAGMENT_CONTENT_MAX_BYTES,
      currentCount,
      remaining: Math.max(0, max - currentCount),
      canCreate: currentCount < max,
      planId: plan?.planId ?? '',
      limitedBy: byPlan ? 'plan' : 'deployment',
    };
  }

  /**
   * The lower of the plan's fragmentsPerWorkspace (the workspace creator's plan) and the
   * deployment's MAX_FRAGMENTS_PER_WORKSPACE: a full workspace answers 403 PLAN_LIMIT_REACHED
   * for the plan's, 409 FRAGMENT_LIMIT_REACHED (the quota's own) for the deployment's.
   */
  private fragmentCap(planHolderId: string) {
    return this.limits.capOf(planHolderId, 'fragmentsPerWorkspace', this.config.MAX_FRAGMENTS_PER_WORKSPACE);
  }

  private async load(id: string): Promise<FragmentRow> {
    const row = isUuid(id) ? await this.fragments.findById(id) : null;
    if (!row) throw fragmentNotFound();
    return row;
  }

  /**
   * One statement for the group; when a key of it was taken meanwhile, its holders are read and
   * those items fail with KEY_EXISTS naming them, the others are inserted together again, and
   * one at a time if that fails too (a key twice in the group), so only the items that lost fail.
   */
  private async insertGroup(
    workspaceId: string,
    group: ReadonlyArray<{ index: number; row: FragmentRow; event: NewOutboxEvent }>,
    results: Array<FragmentRow | AppError>,
    limit: { max: number; refusal: () => AppError } | undefined,
    counts: Map<number, number>,
  ): Promise<void> {
    // Writes the rows (near the limit, those that fit: the rest are refused as one create
    // after another would be); false when a key (or id) of theirs was taken, and nothing written.
    const written = async (rows: typeof group): Promise<boolean> => {
      let fitting = rows;
      try {
        if (!limit)
          await this.fragments.insertManyWithEvents(
            rows.map((m) => m.row),
            rows.map((m) => m.event),
          );
        else {
          const { written: fit, count } = await this.fragments.insertWithinLimit(
            workspaceId,
            rows.map((m) => m.row),
            rows.map((m) => m.event),
            limit.max,
          );
          this.quota.remember(workspaceId, count);
          rows.slice(0, fit).forEach((m, n) => counts.set(m.index, count - fit + n + 1));
          for (const m of rows.slice(fit)) results[m.index] = limit.refusal();
          fitting = rows.slice(0, fit);
        }
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return false;
      }
      for (const m of fitting) results[m.index] = m.row;
      return true;
    };
    if (await written(group)) return;
    const holders = await this.fragments.idsByKeys(workspaceId, [...new Set(group.flatMap((m) => m.row.key ?? []))]);
    const left = group.filter((m) => {
      const holder = m.row.key === null ? undefined : holders.get(m.row.key);
      if (holder) results[m.index] = keyExists(holder);
      return !holder;
    });
    if (await written(left)) return;
    for (const m of left) {
      if (await written([m])) continue;
      if (m.row.key === null) throw new Error(`fragment ${m.row.id}: unique violation without a key`);
      results[m.index] = await this.keyConflict(workspaceId, m.row.key);
    }
  }

  /**
   * A type id from another workspace (or none) is refused: 400 INVALID_FRAGMENT_TYPE. The
   * default types need not be ensured first: a workspace without types yet has no id to offer.
   */
  private async assertTypeOf(workspaceId: string, fragmentTypeId: string): Promise<void> {
    if (!(await this.typeIn(workspaceId, fragmentTypeId))) throw invalidFragmentType();
  }

  private async typeIn(workspaceId: string, fragmentTypeId: string): Promise<boolean> {
    return isUuid(fragmentTypeId) && (await this.types.existsInWorkspace(workspaceId, fragmentTypeId));
  }

  private async keyConflict(workspaceId: string, key: string) {
    return keyExists((await this.fragments.findIdByKey(workspaceId, key)) ?? '');
  }
}

/** What a create checks of its input alone, before any lookup. */
function assertCreatable(input: CreateFragmentRequest): void {
  if (!(CREATED_VIA as readonly string[]).includes(input.createdVia || 'api'))
    throw invalidInput('createdVia', `must be one of ${CREATED_VIA.join(', ')}`);
  assertContentSize(input.content);
}

/** A create past the cap: the plan's 403 PLAN_LIMIT_REACHED, or the deployment's 409 FRAGMENT_LIMIT_REACHED. */
function pastTheCap(cap: { max: number; planRefusal?: () => AppError }): AppError {
  return cap.planRefusal?.() ?? fragmentLimitReached(cap.max);
}

/**
 * A new fragment's row and its `fragment.created` event. The row is built here (id and times
 * from this process's clock, at millisecond precision like the column), so the event's
 * snapshot is known before the one-statement write.
 */
function newFragment(
  input: CreateFragmentRequest,
  author: Pick<Gate, 'workspaceId' | 'userId' | 'enrichment'>,
  id: string,
  context: RequestContext,
  now = new Date(),
): { row: FragmentRow; event: NewOutboxEvent } {
  const hasSummary = input.summary !== undefined && input.summary.trim() !== '';
  const needs = allowedSteps(enrichmentNeeds(hasSummary, input.tagsSupplied, input.enhanceTags), author.enrichment);
  const row: FragmentRow = {
    id,
    workspaceId: author.workspaceId,
    fragmentTypeId: input.fragmentTypeId,
    title: input.title,
    content: input.content,
    summary: hasSummary ? input.summary! : null,
    summarySource: hasSummary ? 'user' : null,
    tags: normalizeTags(input.tags),
    enhanceTags: input.enhanceTags,
    key: input.key ?? null,
    createdVia: input.createdVia || 'api',
    enrichment: pendingEnrichment(needs, now),
    createdBy: author.userId,
    updatedBy: author.userId,
    status: 'processing',
    version: 1,
    createdAt: now,
    updatedAt: now,
    archivedAt: null,
  };
  return { row, event: fragmentChangedEvent(context, 'fragment.created', row, needs) };
}
