import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CreateFragmentRequestSchema } from '@kw/contracts';
import type { BulkFragmentItemDto } from './dto/bulk-fragments.dto.js';

/**
 * A create's body as the contract's message: the single route's and each bulk item's (whose
 * workspace is the request's). `tagsSupplied` tells "no tags sent" (AI tags) from "no tags".
 */
export function createFragmentInput(
  body: BulkFragmentItemDto,
  defaults: { workspaceId?: string; createdVia: string },
): MessageInitShape<typeof CreateFragmentRequestSchema> {
  return {
    workspaceId: defaults.workspaceId,
    fragmentTypeId: body.fragmentTypeId,
    title: body.title,
    content: body.content,
    summary: body.summary,
    // null is "not sent", as for every other field: AI tags (an empty list is "no tags").
    tagsSupplied: body.tags != null,
    tags: body.tags ?? [],
    enhanceTags: body.enhanceTags ?? false,
    createdVia: body.createdVia ?? defaults.createdVia,
    key: body.key,
  };
}
