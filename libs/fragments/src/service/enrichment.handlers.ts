import { Injectable } from '@nestjs/common';
import { EnrichmentService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { isUuid } from '@kw/platform-ids';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { enrichmentRequestedEvent } from '../events/fragment-events.js';
import { EnrichmentRepository } from '../persistence/enrichment.repository.js';
import { readEnrichment, stepsToRequeue, type EnrichmentState } from './enrichment/enrichment-state.js';
import { fragmentNotFound } from './fragment-errors.js';
import { WorkspaceGate } from './workspace-gate.js';

/**
 * kw.enrichment.v1.EnrichmentService. POST /api/memory-fragments/{id}/enrich: puts the fragment
 * back in `processing` and writes a `fragment.enrichment_requested` outbox event in the same
 * transaction (fragments:write; the creator-only rule of contributors applies as for an update).
 */
@Injectable()
export class EnrichmentHandlers {
  constructor(
    private readonly enrichment: EnrichmentRepository,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(EnrichmentService.method.enrichFragment)
  async enrich(input: RequestOf<typeof EnrichmentService, 'enrichFragment'>, context: RequestContext) {
    if (!isUuid(input.fragmentId)) throw fragmentNotFound();
    const found = await this.enrichment.findOwner(input.fragmentId);
    if (!found) throw fragmentNotFound();
    // Outside the transaction: in embedded mode the workspaces component needs the one connection.
    await this.gate.authorize(context, found.workspaceId, 'fragments:write', {
      resourceOwnerId: found.createdBy,
      hiddenAs: fragmentNotFound,
    });
    const requeued = await this.enrichment.requeue(input.fragmentId, (row) => {
      const state = readEnrichment(row.enrichment);
      const steps = stepsToRequeue(state);
      const at = new Date().toISOString();
      const next: EnrichmentState = { ...state };
      for (const step of steps) next[step] = { state: 'pending', attempts: 0, at };
      return {
        enrichment: next,
        event: enrichmentRequestedEvent(
          { id: input.fragmentId, workspaceId: row.workspaceId, version: row.version },
          steps,
          at,
          { requestId: context.requestId },
        ),
        result: {
          fragmentId: input.fragmentId,
          status: 'processing',
          steps,
          version: row.version,
          enrichmentJson: JSON.stringify(next),
        },
      };
    });
    if (!requeued) throw fragmentNotFound();
    return requeued;
  }
}
