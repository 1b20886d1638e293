import { Injectable } from '@nestjs/common';
import { FragmentListingService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { ListingRepository, type ListingQuery } from '../../persistence/listing.repository.js';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import {
  DEFAULT_SELECT,
  fieldSpec,
  FilterError,
  filterToSql,
  invalidFilter,
  SELECTABLE_FIELDS,
  SORTABLE_FIELDS,
  type SqlFragment,
} from './filter/index.js';
import { invalidListingInput } from './listing-errors.js';
import {
  LISTING_LIMIT_DEFAULT,
  LISTING_LIMIT_MAX,
  LISTING_OFFSET_MAX,
  LISTING_ORDER_MAX,
} from '../../search-limits.js';
import { jsonRow } from './rows.js';

/**
 * Structured listing: the selected fields of the workspace's fragments matching a filter
 * expression, in a stable order (the requested keys, then id) so paging visits each row once.
 */
@Injectable()
export class ListFragmentsHandlers {
  constructor(
    private readonly listing: ListingRepository,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(FragmentListingService.method.listFragmentsStructured)
  async list(input: RequestOf<typeof FragmentListingService, 'listFragmentsStructured'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:read');
    const select = selection(input.select);
    const orderBy = ordering(input.orderBy);
    const limit = input.limit || LISTING_LIMIT_DEFAULT;
    if (limit < 1 || limit > LISTING_LIMIT_MAX)
      throw invalidListingInput('limit', `must be between 1 and ${LISTING_LIMIT_MAX}`);
    if (input.offset < 0 || input.offset > LISTING_OFFSET_MAX)
      throw invalidListingInput('offset', `must be between 0 and ${LISTING_OFFSET_MAX}`);
    let condition: SqlFragment;
    try {
      condition = filterToSql(input.filter);
    } catch (error) {
      if (error instanceof FilterError) throw invalidFilter(error);
      throw error;
    }

    const { rows, total } = await this.listing.list({
      workspaceId,
      columns: select.map((name) => ({ name, sql: fieldSpec(name)!.sql })),
      condition,
      orderBy,
      includeArchived: input.includeArchived,
      limit,
      offset: input.offset,
    });
    return { itemsJson: JSON.stringify(rows.map(jsonRow)), totalCount: total };
  }
}

function selection(requested: readonly string[]): string[] {
  if (requested.length === 0) return DEFAULT_SELECT;
  for (const name of requested) {
    if (!SELECTABLE_FIELDS.includes(name))
      throw invalidListingInput('select', `unknown field '${name}' (fields: ${SELECTABLE_FIELDS.join(', ')})`);
  }
  return [...new Set(requested)];
}

function ordering(requested: ReadonlyArray<{ field: string; direction: string }>): ListingQuery['orderBy'] {
  if (requested.length > LISTING_ORDER_MAX) throw invalidListingInput('orderBy', `at most ${LISTING_ORDER_MAX} keys`);
  return requested.map(({ field, direction }) => {
    if (!SORTABLE_FIELDS.includes(field))
      throw invalidListingInput('orderBy', `cannot order by '${field}' (fields: ${SORTABLE_FIELDS.join(', ')})`);
    const dir = (direction || 'asc').toLowerCase();
    if (dir !== 'asc' && dir !== 'desc') throw invalidListingInput('orderBy', "direction must be 'asc' or 'desc'");
    return { sql: fieldSpec(field)!.sql, direction: dir };
  });
}
