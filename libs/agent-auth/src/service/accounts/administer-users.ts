import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  GetUserRequest,
  GetUserResponseSchema,
  ListUsersRequest,
  ListUsersResponseSchema,
  SetUserStatusRequest,
  SetUserStatusResponseSchema,
} from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField, notFound } from '@kw/platform-errors';
import { USERS_PAGE_MAX } from '../../domain/accounts/users-page.js';
import { CallerAccounts } from '../caller-accounts.js';
import { CredentialChanges } from '../credentials/credential-changes.js';
import { toUserMessage } from '../mappers.js';
import { SessionsRepository } from '../../persistence/sessions.repository.js';
import { UsersRepository } from '../../persistence/users.repository.js';

const STATUSES = ['active', 'disabled'] as const;
type Status = (typeof STATUSES)[number];

const isStatus = (value: string): value is Status => (STATUSES as readonly string[]).includes(value);

const refused = (code: string, message: string) => new AppError({ status: 409, code, message });

/**
 * What a platform administrator does with accounts besides creating them (docs/authentication.md,
 * "Administering accounts"): find them, and disable or re-enable one. Disabling stops every
 * credential of the account at its next check, ends its sessions, drops it from the gateways'
 * caches and revokes its hosted-zone handoffs; re-enabling lets its personal access tokens and
 * agent grants work again (it signs in anew).
 */
@Injectable()
export class AdministerUsers {
  constructor(
    private readonly callers: CallerAccounts,
    private readonly users: UsersRepository,
    private readonly changes: CredentialChanges,
    private readonly sessions: SessionsRepository,
  ) {}

  async list(
    input: ListUsersRequest,
    context: RequestContext,
  ): Promise<MessageInitShape<typeof ListUsersResponseSchema>> {
    await this.callers.require(context, 'admin');
    if (input.status !== '' && !isStatus(input.status)) throw invalidField('status', 'must be active or disabled');
    if (input.limit < 1 || input.limit > USERS_PAGE_MAX)
      throw invalidField('limit', `must be between 1 and ${USERS_PAGE_MAX}`);
    if (input.offset < 0) throw invalidField('offset', 'must not be negative');
    const { users, totalCount } = await this.users.list(
      { email: input.email.trim() || undefined, status: input.status === '' ? undefined : (input.status as Status) },
      input.limit,
      input.offset,
    );
    return { users: users.map(toUserMessage), totalCount };
  }

  async get(input: GetUserRequest, context: RequestContext): Promise<MessageInitShape<typeof GetUserResponseSchema>> {
    await this.callers.require(context, 'admin');
    const user = await this.users.findById(input.id);
    if (!user) throw notFound('User');
    return { user: toUserMessage(user) };
  }

  async setStatus(
    input: SetUserStatusRequest,
    context: RequestContext,
  ): Promise<MessageInitShape<typeof SetUserStatusResponseSchema>> {
    const { user: admin } = await this.callers.require(context, 'admin');
    if (!isStatus(input.status)) throw invalidField('status', 'must be active or disabled');
    if (input.status === 'disabled' && input.id === admin.id)
      throw refused(ErrorCode.CONFLICT, 'You cannot disable your own account');
    const outcome = await this.users.setStatus(input.id, input.status);
    if (outcome === null) throw notFound('User');
    if (outcome === 'last-admin')
      throw refused('LAST_ADMIN', 'The last active platform administrator cannot be disabled');
    if (input.status === 'disabled') {
      // Sessions end for good; tokens and agent grants are refused while the account is disabled.
      await this.sessions.revokeAllOfUser(outcome.id, new Date());
      await this.changes.accountRevoked(outcome.id);
    } else this.changes.accountChanged(outcome.id);
    return { user: toUserMessage(outcome) };
  }
}
