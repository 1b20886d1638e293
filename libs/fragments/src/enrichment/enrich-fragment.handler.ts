import { Inject, Injectable } from '@nestjs/common';
import { EnrichmentService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { fragmentNotFound } from '../service/fragment-errors.js';
import { FRAGMENTS_DB, type DataDb } from '../service/fragments-db.js';
import { isUuid } from '@kw/platform-ids';
import { WorkspaceGate } from '../service/workspace-gate.js';
import {
  ENRICHMENT_REQUESTED_EVENT,
  ENRICHMENT_STEPS,
  readEnrichment,
  type EnrichmentState,
  type EnrichmentStep,
} from './enrichment-state.js';

/** The steps a re-enrich request queues: the failed ones, or every step that is not skipped. */
export function stepsToRequeue(state: EnrichmentState): EnrichmentStep[] {
  const failed = ENRICHMENT_STEPS.filter((s) => state[s]?.state === 'failed');
  return failed.length > 0 ? failed : ENRICHMENT_STEPS.filter((s) => state[s]?.state !== 'skipped');
}

/**
 * POST /api/memory-fragments/{id}/enrich: puts the fragment back in `processing` and writes an
 * `fragment.enrichment_requested` outbox event in the same transaction (fragments:write; the
 * creator-only rule of contributors applies as for an update).
 */
@Injectable()
export class EnrichFragmentHandler {
  constructor(
    @Inject(FRAGMENTS_DB) private readonly db: DataDb,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(EnrichmentService.method.enrichFragment)
  async enrich(input: RequestOf<typeof EnrichmentService, 'enrichFragment'>, context: RequestContext) {
    if (!isUuid(input.fragmentId)) throw fragmentNotFound();
    const found = await this.db.fragment.findUnique({
      where: { id: input.fragmentId },
      select: { workspaceId: true, createdBy: true },
    });
    if (!found) throw fragmentNotFound();
    // Outside the transaction: in embedded mode the workspaces component needs the one connection.
    await this.gate.authorize(context, found.workspaceId, 'fragments:write', {
      resourceOwnerId: found.createdBy,
      hiddenAs: fragmentNotFound,
    });
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Array<{ version: number; enrichment: unknown; workspace_id: string }>>`
        SELECT version, enrichment, workspace_id::text FROM data.fragments WHERE id = ${input.fragmentId}::uuid FOR UPDATE`;
      const row = rows[0];
      if (!row) throw fragmentNotFound();
      const state = readEnrichment(row.enrichment);
      const steps = stepsToRequeue(state);
      const at = new Date().toISOString();
      const next: EnrichmentState = { ...state };
      for (const step of steps) next[step] = { state: 'pending', attempts: 0, at };
      await tx.fragment.update({
        where: { id: input.fragmentId },
        data: { status: 'processing', enrichment: next as object },
      });
      await tx.outboxEvent.create({
        data: {
          aggregateType: 'fragment',
          aggregateId: input.fragmentId,
          eventType: ENRICHMENT_REQUESTED_EVENT,
          payload: {
            fragmentId: input.fragmentId,
            workspaceId: row.workspace_id,
            version: row.version,
            needs: steps,
            occurredAt: at,
          },
          headers: { requestId: context.requestId },
        },
      });
      return {
        fragmentId: input.fragmentId,
        status: 'processing',
        steps,
        version: row.version,
        enrichmentJson: JSON.stringify(next),
      };
    });
  }
}
