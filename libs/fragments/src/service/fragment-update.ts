import type { FragmentsService } from '@kw/contracts';
import type { RequestOf } from '@kw/platform-transport';
import type { FragmentChanges } from '../persistence/fragments.repository.js';
import type { FragmentRow } from '../persistence/rows.js';
import {
  enrichmentNeeds,
  pendingEnrichment,
  readEnrichment,
  type EnrichmentState,
  type EnrichmentStep,
  type StepState,
} from './enrichment/enrichment-state.js';
import { assertContentSize, normalizeTags } from './fragment-fields.js';
import { applyOperations, type PatchOperation } from './patch-operations.js';
import { allowedSteps } from './workspace-enrichment.js';
import type { Gate } from './workspace-gate.js';

export type UpdateInput = RequestOf<typeof FragmentsService, 'updateFragment'>;

/** What an update writes over a fragment, and the enrichment steps its event asks for. */
export interface PlannedUpdate {
  changes: FragmentChanges;
  needs: EnrichmentStep[];
}

/**
 * What `input` (a PATCH) writes over `row`, the fragment as it is now. Pure, so that an update
 * sent without a version can be planned again over the row as it is once locked, when another
 * write landed first (FragmentsHandlers.update). Throws the input's own refusals: a patch
 * operation naming a heading the content lacks, content past its limit.
 */
export function planUpdate(
  row: FragmentRow,
  input: UpdateInput,
  author: Pick<Gate, 'userId' | 'enrichment'>,
  now: Date,
): PlannedUpdate {
  const content =
    input.operations.length > 0
      ? applyOperations(row.content, input.operations as PatchOperation[])
      : (input.content ?? row.content);
  assertContentSize(content);
  const title = input.title ?? row.title;
  const textChanged = content !== row.content || title !== row.title;
  const summarySupplied = input.summary !== undefined;
  const hasUserSummary = summarySupplied ? input.summary!.trim() !== '' : row.summarySource === 'user';
  const tags = input.tagsSupplied ? normalizeTags(input.tags) : row.tags;
  const enhanceTags = input.enhanceTags ?? row.enhanceTags;
  // A change of the text re-runs enrichment. A summary cleared ("") is generated again: only that
  // step, the others keep what they did. Other changes are announced with no steps.
  const summaryCleared = summarySupplied && !hasUserSummary;
  // The workspace's settings may leave the AI summary or tags out.
  const needs = allowedSteps(
    textChanged ? enrichmentNeeds(hasUserSummary, tags.length > 0, enhanceTags) : summaryCleared ? ['summary'] : [],
    author.enrichment,
  );
  return {
    changes: {
      title,
      content,
      ...(summarySupplied && {
        summary: {
          summary: hasUserSummary ? input.summary! : null,
          summarySource: hasUserSummary ? ('user' as const) : null,
        },
      }),
      tags,
      enhanceTags,
      ...(input.fragmentTypeId !== undefined && { fragmentTypeId: input.fragmentTypeId }),
      ...(input.key !== undefined && { key: input.key === '' ? null : input.key }),
      ...(textChanged && { enrichment: pendingEnrichment(needs, now) }),
      ...(!textChanged && needs.length > 0 && { enrichment: requeued(row, needs, now) }),
      updatedBy: author.userId,
    },
    needs,
  };
}

/** The fragment's enrichment state with `steps` pending again and the others as they are. */
function requeued(row: FragmentRow, steps: readonly EnrichmentStep[], now: Date): EnrichmentState {
  const pending = pendingEnrichment(steps, now);
  const state: EnrichmentState = { ...readEnrichment(row.enrichment) };
  for (const step of steps) state[step] = pending[step] as StepState;
  return state;
}
