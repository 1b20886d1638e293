import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { AuthContextSchema } from '@kw/contracts';
import { requestContext } from '@kw/platform-context';
import type { EmbedConfigRow } from '../persistence/embed-configs.repository.js';

/**
 * Runs `work` as an embed configuration's creator, restricted to its workspace and to `scopes`:
 * what the embed chat does on the creator's behalf rather than the visitor's (looking up the host
 * page's user, reading the workspace's name, storing feedback). Calls made inside carry it.
 */
export function asConfigCreator<T>(
  config: Pick<EmbedConfigRow, 'id' | 'createdBy' | 'workspaceId'>,
  scopes: string[],
  work: () => Promise<T>,
): Promise<T> {
  const auth = create(AuthContextSchema, {
    userId: config.createdBy,
    credentialId: config.id,
    credentialKind: 'embed',
    scopes,
    workspaceIds: [config.workspaceId],
    allWorkspaces: false,
  });
  return requestContext.run({ requestId: requestContext.requestId() ?? randomUUID(), auth }, work);
}
