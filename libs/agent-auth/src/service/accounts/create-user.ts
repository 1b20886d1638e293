import { Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CreateUserRequest, CreateUserResponseSchema } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError } from '@kw/platform-errors';
import { hashPassword } from '../credentials/password-hasher.js';
import { CallerAccounts } from '../caller-accounts.js';
import { toUserMessage } from '../mappers.js';
import { isUniqueViolation } from '../../persistence/rows.js';
import { UsersRepository } from '../../persistence/users.repository.js';
import { canonicalEmail } from '../../domain/accounts/email.js';

export const EMAIL_TAKEN = 'EMAIL_TAKEN';

const emailTaken = (): AppError =>
  new AppError({ status: 409, code: EMAIL_TAKEN, message: 'An account with this email already exists' });

/** CreateUser: platform administrators create accounts (there is no self-service sign-up). */
@Injectable()
export class CreateUser {
  constructor(
    private readonly callers: CallerAccounts,
    private readonly users: UsersRepository,
  ) {}

  async execute(
    input: CreateUserRequest,
    context: RequestContext,
  ): Promise<MessageInitShape<typeof CreateUserResponseSchema>> {
    await this.callers.require(context, 'admin');
    const email = canonicalEmail(input.email);
    if (await this.users.findByEmail(email)) throw emailTaken();
    const passwordHash = await hashPassword(input.password);
    try {
      const user = await this.users.create({ email, displayName: input.displayName.trim(), passwordHash });
      return { user: toUserMessage(user) };
    } catch (err) {
      // Two admins creating the same account at once: the unique index decides.
      if (isUniqueViolation(err)) throw emailTaken();
      throw err;
    }
  }
}
