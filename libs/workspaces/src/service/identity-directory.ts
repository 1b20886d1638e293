import { Injectable } from '@nestjs/common';
import { IdentityService, type User } from '@kw/contracts';
import { ServiceClient } from '@kw/platform-transport';

/**
 * Accounts belong to agent-auth: this component looks users up through the identity
 * contract and never reads the accounts tables. Never call it inside a database
 * transaction: in embedded mode the identity service needs the same single connection.
 */
@Injectable()
export class IdentityDirectory {
  constructor(private readonly client: ServiceClient) {}

  async usersById(ids: readonly string[]): Promise<Map<string, User>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const { users } = await this.client.call(IdentityService.method.getUsers, { ids: unique });
    return new Map(users.map((u) => [u.id, u]));
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const answer = await this.client.call(IdentityService.method.findUserByEmail, { email });
    return answer.found ? answer.user : undefined;
  }

  /** The caller's current email (lower-case), or undefined for an unknown account. */
  async emailOf(userId: string): Promise<string | undefined> {
    return (await this.usersById([userId])).get(userId)?.email.toLowerCase();
  }
}
