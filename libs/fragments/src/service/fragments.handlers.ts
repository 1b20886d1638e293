import { Inject, Injectable } from '@nestjs/common';
import { FragmentsService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import {
  CREATED_VIA,
  FRAGMENT_CONTENT_MAX_BYTES,
  FRAGMENT_LIST_BATCH,
  FRAGMENT_LIST_LIMIT_DEFAULT,
} from '../fragment-limits.js';
import type { AppConfig } from '@kw/platform-config';
import type { Database } from '@kw/platform-persistence';
import { APP_CONFIG, DATABASE } from '@kw/platform-runtime';
import {
  ownersOnly,
  fragmentNotFound,
  invalidFragmentType,
  invalidInput,
  keyExists,
  versionConflict,
} from './fragment-errors.js';
import { fragmentById } from './fragment-by-id.js';
import { insertFragment } from './fragment-insert.js';
import { enrichmentNeeds, pendingEnrichment, recordFragmentEvent, type EnrichmentStep } from './fragment-events.js';
import { fragmentView } from './fragment-view.js';
import { FRAGMENTS_DB, isUniqueViolation, type DataDb, type FragmentRow } from './fragments-db.js';
import { isUuid } from '@kw/platform-ids';
import { applyOperations, type PatchOperation } from './patch-operations.js';
import { WorkspaceGate } from './workspace-gate.js';
import { FragmentQuota } from './fragment-quota.js';

const SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', title: 'title' } as const;

/** Memory fragments: create, list, get, update (fields and patch operations), archive and delete. */
@Injectable()
export class FragmentHandlers {
  private readonly quota: FragmentQuota;

  constructor(
    @Inject(FRAGMENTS_DB) private readonly db: DataDb,
    private readonly gate: WorkspaceGate,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly database: Database,
  ) {
    this.quota = new FragmentQuota(db);
  }

  @Handles(FragmentsService.method.createFragment)
  async create(input: RequestOf<typeof FragmentsService, 'createFragment'>, context: RequestContext) {
    const { workspaceId, userId } = await this.gate.authorize(context, input.workspaceId, 'fragments:write');
    const createdVia = input.createdVia || 'api';
    if (!(CREATED_VIA as readonly string[]).includes(createdVia))
      throw invalidInput('createdVia', `must be one of ${CREATED_VIA.join(', ')}`);
    assertContentSize(input.content);
    await this.assertTypeOf(workspaceId, input.fragmentTypeId);
    await this.quota.reserve(workspaceId, this.config.MAX_FRAGMENTS_PER_WORKSPACE);

    const hasSummary = input.summary !== undefined && input.summary.trim() !== '';
    const needs = enrichmentNeeds(hasSummary, input.tagsSupplied, input.enhanceTags);
    try {
      const row = await insertFragment(
        this.database.pool,
        context,
        {
          workspaceId,
          fragmentTypeId: input.fragmentTypeId,
          title: input.title,
          content: input.content,
          summary: hasSummary ? input.summary! : null,
          summarySource: hasSummary ? 'user' : null,
          tags: normalizeTags(input.tags),
          enhanceTags: input.enhanceTags,
          key: input.key ?? null,
          createdVia,
          enrichment: pendingEnrichment(needs, new Date()),
          createdBy: userId,
          updatedBy: userId,
        },
        needs,
      );
      return { fragment: fragmentView(row) };
    } catch (error) {
      // The unique (workspace_id, key) decides between concurrent creates: exactly one wins.
      if (isUniqueViolation(error) && input.key !== undefined) throw await this.keyConflict(workspaceId, input.key);
      throw error;
    }
  }

  @Handles(FragmentsService.method.listFragments)
  async list(input: RequestOf<typeof FragmentsService, 'listFragments'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:read');
    const where = {
      workspaceId,
      ...(input.id !== undefined && { id: input.id }),
      ...(input.fragmentTypeId !== undefined && { fragmentTypeId: input.fragmentTypeId }),
      ...(input.status !== undefined && { status: input.status }),
      ...(input.key !== undefined && { key: input.key }),
      ...(input.tags.length > 0 && { tags: { hasEvery: normalizeTags(input.tags) } }),
      ...(!input.includeArchived && { archivedAt: null }),
    };
    const field = SORT_FIELDS[input.sort as keyof typeof SORT_FIELDS] ?? 'createdAt';
    const order = input.order === 'desc' ? 'desc' : 'asc';
    // The id breaks ties so that offset paging is stable; with createdAt asc (the default)
    // new records land at the end and a walk by offset sees every record once.
    const orderBy = [{ [field]: order }, { id: order }];
    const limit = input.limit || FRAGMENT_LIST_LIMIT_DEFAULT;
    const [totalCount, rows] = await Promise.all([
      this.db.fragment.count({ where }),
      this.pageWithinBytes(where, orderBy, limit, input.offset),
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
    where: object,
    orderBy: object[],
    limit: number,
    offset: number,
  ): Promise<FragmentRow[]> {
    const page: FragmentRow[] = [];
    let bytes = 0;
    while (page.length < limit) {
      const take = Math.min(FRAGMENT_LIST_BATCH, limit - page.length);
      const batch = await this.db.fragment.findMany({ where, orderBy, take, skip: offset + page.length });
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
    const { userId, workspaceId } = await this.gate.authorize(context, current.workspaceId, 'fragments:write', {
      resourceOwnerId: current.createdBy,
      hiddenAs: fragmentNotFound,
    });
    if (input.expectedVersion > 0 && input.expectedVersion !== current.version) throw versionConflict(current.version);
    if (input.fragmentTypeId !== undefined && input.fragmentTypeId !== current.fragmentTypeId)
      await this.assertTypeOf(workspaceId, input.fragmentTypeId);

    const content =
      input.operations.length > 0
        ? applyOperations(current.content, input.operations as PatchOperation[])
        : (input.content ?? current.content);
    assertContentSize(content);
    const title = input.title ?? current.title;
    const textChanged = content !== current.content || title !== current.title;
    const summarySupplied = input.summary !== undefined;
    const hasUserSummary = summarySupplied ? input.summary!.trim() !== '' : current.summarySource === 'user';
    const tags = input.tagsSupplied ? normalizeTags(input.tags) : current.tags;
    const enhanceTags = input.enhanceTags ?? current.enhanceTags;
    // Only a change of the text re-runs enrichment; other changes are announced with no steps.
    const needs: EnrichmentStep[] = textChanged ? enrichmentNeeds(hasUserSummary, tags.length > 0, enhanceTags) : [];
    const now = new Date();
    try {
      const row = await this.db.$transaction(async (tx) => {
        const { count } = await tx.fragment.updateMany({
          where: { id: current.id, version: current.version },
          data: {
            title,
            content,
            ...(summarySupplied && {
              summary: hasUserSummary ? input.summary : null,
              summarySource: hasUserSummary ? 'user' : null,
            }),
            tags,
            enhanceTags,
            ...(input.fragmentTypeId !== undefined && { fragmentTypeId: input.fragmentTypeId }),
            ...(input.key !== undefined && { key: input.key === '' ? null : input.key }),
            ...(textChanged && { status: 'processing', enrichment: pendingEnrichment(needs, now) }),
            version: { increment: 1 },
            updatedBy: userId,
          },
        });
        const updated = await tx.fragment.findUniqueOrThrow({ where: { id: current.id } });
        // Someone else's update landed between the read and this write: change nothing.
        if (count === 0) throw versionConflict(updated.version);
        // The text is unchanged, so its embeddings still hold: they follow the new version
        // (search counts only chunks of the fragment's current version).
        if (!textChanged)
          await tx.fragmentChunk.updateMany({
            where: { fragmentId: current.id, version: current.version },
            data: { version: updated.version },
          });
        await recordFragmentEvent(tx, context, 'fragment.updated', updated, needs);
        return updated;
      });
      return { fragment: fragmentView(row) };
    } catch (error) {
      if (isUniqueViolation(error) && input.key) throw await this.keyConflict(workspaceId, input.key);
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
    const row = await this.db.$transaction(async (tx) => {
      if (input.permanent) {
        await tx.fragment.delete({ where: { id: current.id } });
        await recordFragmentEvent(tx, context, 'fragment.deleted', current, [], { permanent: true });
        return current;
      }
      if (current.archivedAt) return current;
      const archived = await tx.fragment.update({
        where: { id: current.id },
        data: { archivedAt: new Date(), version: { increment: 1 } },
      });
      await recordFragmentEvent(tx, context, 'fragment.deleted', archived, []);
      return archived;
    });
    return { fragment: fragmentView(row) };
  }

  @Handles(FragmentsService.method.checkFragmentLimits)
  async checkLimits(input: RequestOf<typeof FragmentsService, 'checkFragmentLimits'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:read');
    const max = this.config.MAX_FRAGMENTS_PER_WORKSPACE;
    const currentCount = await this.db.fragment.count({ where: { workspaceId } });
    return {
      maxFragmentsPerWorkspace: max,
      maxContentBytes: FRAGMENT_CONTENT_MAX_BYTES,
      currentCount,
      remaining: Math.max(0, max - currentCount),
      canCreate: currentCount < max,
    };
  }

  private async load(id: string): Promise<FragmentRow> {
    const row = isUuid(id) ? await fragmentById(this.database.pool, id) : null;
    if (!row) throw fragmentNotFound();
    return row;
  }

  /**
   * A type id from another workspace (or none) is refused: 400 INVALID_FRAGMENT_TYPE. The
   * default types need not be ensured first: a workspace without types yet has no id to offer.
   */
  private async assertTypeOf(workspaceId: string, fragmentTypeId: string): Promise<void> {
    // A plain pg statement: it runs on every create (see fragment-insert.ts).
    const found = isUuid(fragmentTypeId)
      ? (
          await this.database.pool.query('SELECT 1 FROM data.fragment_types WHERE id = $1 AND workspace_id = $2', [
            fragmentTypeId,
            workspaceId,
          ])
        ).rowCount
      : 0;
    if (!found) throw invalidFragmentType();
  }

  private async keyConflict(workspaceId: string, key: string) {
    const existing = await this.db.fragment.findUnique({
      where: { workspaceId_key: { workspaceId, key } },
      select: { id: true },
    });
    return keyExists(existing?.id ?? '');
  }
}

function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter((t) => t !== ''))];
}

function assertContentSize(content: string): void {
  if (Buffer.byteLength(content, 'utf8') > FRAGMENT_CONTENT_MAX_BYTES)
    throw invalidInput('content', `must be at most ${FRAGMENT_CONTENT_MAX_BYTES} bytes`);
}
