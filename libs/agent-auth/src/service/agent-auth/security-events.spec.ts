import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import type { SeenJwtIdsRepository } from '../../persistence/seen-jwt-ids.repository.js';
import type { AgentGrantsRepository } from '../../persistence/agent-grants.repository.js';
import type { SessionsRepository } from '../../persistence/sessions.repository.js';
import type { UsersRepository } from '../../persistence/users.repository.js';
import type { CredentialChanges } from '../credentials/credential-changes.js';
import { SecurityEvents } from './security-events.js';
import { JwtRefused, type SignedJwtVerifier } from './signed-jwt-verifier.js';

/** A SET whose jti was seen before: what its first delivery did decides the answer. */
function replayed(applied: boolean): SecurityEvents {
  const verifier = {
    verify: () =>
      Promise.reject(
        new JwtRefused('replayed', 'This JWT was used before (jti)', { issuer: 'https://idp.test', jti: 'j1' }),
      ),
  } as unknown as SignedJwtVerifier;
  const seen = { wasApplied: () => Promise.resolve(applied) } as unknown as SeenJwtIdsRepository;
  const unused = {} as never;
  return new SecurityEvents(
    verifier,
    unused as AgentGrantsRepository,
    unused as UsersRepository,
    unused as SessionsRepository,
    seen,
    unused as CredentialChanges,
  );
}

describe('SecurityEvents: a replayed jti', () => {
  it('is accepted again, applying nothing, once its first delivery was applied', async () => {
    await expect(replayed(true).receive('set', 'https://kw.test')).resolves.toEqual([]);
  });

  it('is refused as a replay while its first delivery is not applied', async () => {
    const refusal = await replayed(false)
      .receive('set', 'https://kw.test')
      .catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ status: 400, code: 'invalid_request' });
  });
});
