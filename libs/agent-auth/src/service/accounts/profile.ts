import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { GetProfileResponseSchema, UpdateProfileRequest, UpdateProfileResponseSchema } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { CallerAccounts } from '../caller-accounts.js';
import { CredentialChanges } from '../credentials/credential-changes.js';
import { toUserMessage } from '../mappers.js';
import { UsersRepository } from '../../persistence/users.repository.js';

/** GetProfile / UpdateProfile: the caller's own account; only the display name is writable. */
@Injectable()
export class Profile {
  constructor(
    private readonly callers: CallerAccounts,
    private readonly users: UsersRepository,
    private readonly changes: CredentialChanges,
  ) {}

  async get(context: RequestContext): Promise<MessageInitShape<typeof GetProfileResponseSchema>> {
    const { user } = await this.callers.require(context, 'profile:read');
    return { user: toUserMessage(user) };
  }

  async update(
    input: UpdateProfileRequest,
    context: RequestContext,
  ): Promise<MessageInitShape<typeof UpdateProfileResponseSchema>> {
    const { user } = await this.callers.require(context, 'profile:write');
    if (input.displayName === undefined) return { user: toUserMessage(user) };
    const updated = await this.users.updateDisplayName(user.id, input.displayName.trim());
    // Gateways cache the account with its tokens' authentications.
    this.changes.accountChanged(user.id);
    return { user: toUserMessage(updated) };
  }
}
