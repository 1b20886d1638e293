import type { MessageInitShape } from '@bufbuild/protobuf';
import type { PersonalAccessTokenSchema, UserSchema } from '@kw/contracts';
import type { TokenRow, UserRow } from '../persistence/rows.js';

export function toUserMessage(user: UserRow): MessageInitShape<typeof UserSchema> {
  return {
    id: user.id,
    email: user.email,
    displayName: user.displayName,
    status: user.status,
    platformAdmin: user.platformAdmin,
    createdAt: user.createdAt.toISOString(),
  };
}

/** Token metadata; the secret is not stored, so it cannot leak from here. */
export function toTokenMessage(token: TokenRow): MessageInitShape<typeof PersonalAccessTokenSchema> {
  return {
    id: token.id,
    name: token.name,
    displayPrefix: token.displayPrefix,
    scopes: token.scopes,
    allWorkspaces: token.allWorkspaces,
    workspaceIds: token.allWorkspaces ? [] : token.workspaceIds,
    expiresAt: token.expiresAt?.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString(),
    lastUsedIp: token.lastUsedIp ?? undefined,
    createdAt: token.createdAt.toISOString(),
  };
}
