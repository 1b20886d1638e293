import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BULK_FRAGMENTS_MAX, FragmentsService, type BulkItemOutcome } from '@kw/contracts';
import { AppError } from '@kw/platform-errors';
import { validateAgainst } from '@kw/platform-http';
import { ServiceClient } from '@kw/platform-transport';
import {
  BulkFragmentItemDto,
  BulkWriteFragmentsDto,
  BulkWriteResultDto,
  type BulkItemResultDto,
} from './dto/bulk-fragments.dto.js';
import { createFragmentInput } from './create-fragment-input.js';

/** How long one bulk request's writes may take (500 items on a busy machine take seconds, not minutes). */
const BULK_CALL_TIMEOUT_MS = 120_000;

const failed = (index: number, err: AppError): BulkItemResultDto => ({
  index,
  status: 'failed',
  error: {
    status: err.status,
    code: err.code,
    message: err.message,
    ...(err.param ? { param: err.param } : {}),
    ...(typeof err.details?.existingId === 'string' ? { existingId: err.details.existingId } : {}),
  },
});

function resultOf(o: BulkItemOutcome): BulkItemResultDto {
  if (o.status !== 'failed') return { index: o.index, status: o.status, id: o.fragmentId };
  return failed(
    o.index,
    new AppError({
      status: o.errorStatus,
      code: o.errorCode,
      message: o.errorMessage,
      param: o.errorParam || undefined,
      details: o.existingId ? { existingId: o.existingId } : undefined,
    }),
  );
}

/** Bulk writes for importers (docs/fragments.md#bulk-writes). */
@ApiTags('Memory fragments')
@Controller('api/memory-fragments')
export class BulkFragmentsController {
  constructor(private readonly client: ServiceClient) {}

  @Post('bulk')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create or upsert many fragments',
    description:
      `Up to ${BULK_FRAGMENTS_MAX} fragments of one workspace in one request (one request against rate limits). ` +
      'Each item is validated and written like `POST /api/memory-fragments` (with `upsert`, an existing `key` ' +
      'updates that fragment) and gets its own outcome, in order; a failed item writes nothing and the others ' +
      'go on: the outcomes are those of writing the items one after another, and fragments created by one ' +
      'request list in its order. `createdVia` defaults to `import`. Answers 200 whatever the outcomes. ' +
      'Scope `fragments:write`.',
  })
  @ApiOkResponse({ type: BulkWriteResultDto })
  async bulk(@Body() body: BulkWriteFragmentsDto): Promise<BulkWriteResultDto> {
    const results: BulkItemResultDto[] = [];
    const items = [];
    for (const [index, raw] of body.items.entries()) {
      try {
        const item = await validateAgainst(BulkFragmentItemDto, raw);
        items.push({ index, fragment: createFragmentInput(item, { createdVia: 'import' }) });
      } catch (err) {
        if (!AppError.isAppError(err)) throw err;
        results[index] = failed(index, err);
      }
    }
    // Asked even when every item failed here: the workspace is authorized all the same.
    // Up to BULK_FRAGMENTS_MAX writes in one call: the ordinary 10 s would end the request while
    // the writes go on (a client would see a timeout for items that were written).
    const { outcomes } = await this.client.call(
      FragmentsService.method.bulkWriteFragments,
      { workspaceId: body.workspaceId, upsert: body.upsert ?? false, items },
      { timeoutMs: BULK_CALL_TIMEOUT_MS },
    );
    for (const outcome of outcomes) results[outcome.index] = resultOf(outcome);
    const count = (status: string) => results.filter((r) => r.status === status).length;
    return {
      success: true,
      created: count('created'),
      updated: count('updated'),
      unchanged: count('unchanged'),
      failed: count('failed'),
      results,
    };
  }
}
