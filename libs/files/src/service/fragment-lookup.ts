import { Injectable } from '@nestjs/common';
import { FragmentsService } from '@kw/contracts';
import { AppError, ErrorCode, invalidField } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { ServiceClient } from '@kw/platform-transport';
import { filesUnsupported } from './file-records.js';

export const fragmentNotFound = () =>
  new AppError({ status: 404, code: ErrorCode.NOT_FOUND, message: 'Fragment not found' });

/**
 * Fragments belong to the fragments component: files learn a fragment's workspace by asking it
 * (GetFragment, as the caller), so a fragment the caller may not read is missing here too.
 */
@Injectable()
export class FragmentLookup {
  constructor(private readonly client: ServiceClient) {}

  /** The workspace of a fragment the caller may read. */
  async workspaceOf(fragmentId: string): Promise<string> {
    if (!isUuid(fragmentId)) throw fragmentNotFound();
    try {
      const { fragment } = await this.client.call(FragmentsService.method.getFragment, { fragmentId });
      if (!fragment) throw fragmentNotFound();
      return fragment.workspaceId;
    } catch (err) {
      // A fragment in a hosted zone: the files side has nothing there (Hosted Zone V1).
      if (AppError.isAppError(err) && err.code === ErrorCode.HOSTED_ZONE_REQUIRED) {
        throw filesUnsupported(err);
      }
      throw err;
    }
  }

  /** A fragment the caller may read, in `workspaceId` (attachments never cross workspaces). */
  async requireInWorkspace(fragmentId: string, workspaceId: string): Promise<void> {
    const fragmentWorkspace = await this.workspaceOf(fragmentId);
    if (fragmentWorkspace !== workspaceId) {
      throw invalidField('fragmentId', "must be a fragment of the file's own workspace");
    }
  }
}
