import { Injectable } from '@nestjs/common';
import { HostedZonesService } from '@kw/contracts';
import { badRequest } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { HandoffRevocationsRepository } from '../../persistence/handoff-revocations.repository.js';

/** One call names at most this many ids (agent-auth revokes an application's grants together). */
const MAX_IDS = 10_000;
const CREDENTIAL_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * Internal, from agent-auth (no HTTP route; the bus is the platform's own network): accounts
 * disabled and credentials revoked. The Leaves get the entries with their next heartbeat and
 * refuse the handoff tokens issued until now (docs/hosted-zones.md#revocation). Membership
 * changes are recorded by the members repository itself, in the change's transaction.
 */
@Injectable()
export class HandoffRevocationsHandlers {
  constructor(private readonly revocations: HandoffRevocationsRepository) {}

  @Handles(HostedZonesService.method.recordHandoffRevocations)
  async record(input: RequestOf<typeof HostedZonesService, 'recordHandoffRevocations'>) {
    if (input.userIds.length + input.credentialIds.length > MAX_IDS)
      throw badRequest(`At most ${MAX_IDS} ids per call`);
    if (!input.userIds.every(isUuid)) throw badRequest('user_ids must be UUIDs');
    if (!input.credentialIds.every((id) => CREDENTIAL_ID.test(id)))
      throw badRequest('credential_ids must be 1 to 200 printable characters');
    await this.revocations.record(
      { userIds: [...new Set(input.userIds)], credentialIds: [...new Set(input.credentialIds)] },
      new Date(),
    );
    return {};
  }
}
