import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { VaultService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, capReached, notFound, secretUnreadable } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import type { EnvelopeSealer } from '@kw/platform-secret-box';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { SecretNameTaken, VaultRepository, type SecretChanges } from '../persistence/vault.repository.js';
import { VAULT_ACCESS_LOG_DEFAULT, VAULT_ACCESS_LOG_MAX, VAULT_SECRETS_PER_USER_MAX } from '../chat-limits.js';
import { requireAccount } from './chat-caller.js';
import { secretAccessView, secretView } from './secret-view.js';
import { validNewSecret, validProvider, validSecretName, validValue } from './secret-input.js';

export const VAULT_SEALER = Symbol('VAULT_SEALER');

type Req<M extends keyof typeof VaultService.method> = RequestOf<typeof VaultService, M>;

const secretNotFound = () => notFound('Secret');
const nameTaken = (name: string) =>
  new AppError({
    status: 409,
    code: ErrorCode.SECRET_NAME_TAKEN,
    message: `You already have a secret named "${name}"`,
    param: 'name',
  });

/**
 * The secret vault: each secret belongs to its user and nobody else learns it exists (404).
 * Values are write-only; the one read, a bring-your-own-key model call, is recorded for the owner.
 */
@Injectable()
export class VaultHandlers {
  constructor(
    private readonly vault: VaultRepository,
    @Inject(VAULT_SEALER) private readonly sealer: EnvelopeSealer,
  ) {}

  @Handles(VaultService.method.listSecrets)
  async list(_input: Req<'listSecrets'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'vault:manage');
    return { secrets: (await this.vault.listOf(userId)).map(secretView) };
  }

  @Handles(VaultService.method.createSecret)
  async create(input: Req<'createSecret'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'vault:manage');
    const secret = validNewSecret(input);
    const id = randomUUID();
    try {
      const row = await this.vault.insertWithin(
        { id, userId, ...secret, ...this.sealer.seal(input.value, id) },
        VAULT_SECRETS_PER_USER_MAX,
      );
      if (!row) throw capReached(`A user keeps at most ${VAULT_SECRETS_PER_USER_MAX} secrets`);
      return { secret: secretView(row) };
    } catch (err) {
      if (err instanceof SecretNameTaken) throw nameTaken(secret.name);
      throw err;
    }
  }

  @Handles(VaultService.method.getSecret)
  async get(input: Req<'getSecret'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'vault:manage');
    const row = isUuid(input.id) ? await this.vault.findOwned(userId, input.id) : null;
    if (!row) throw secretNotFound();
    return { secret: secretView(row) };
  }

  @Handles(VaultService.method.updateSecret)
  async update(input: Req<'updateSecret'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'vault:manage');
    const current = isUuid(input.id) ? await this.vault.findOwned(userId, input.id) : null;
    if (!current) throw secretNotFound();
    const changes: SecretChanges = {};
    if (input.name !== undefined) changes.name = validSecretName(input.name);
    if (input.provider !== undefined) changes.provider = validProvider(input.provider, current.type);
    if (input.description !== undefined) changes.description = input.description;
    if (input.value !== undefined) changes.sealed = this.sealer.seal(validValue(input.value), input.id);
    try {
      const row = await this.vault.update(userId, input.id, changes);
      if (!row) throw secretNotFound();
      return { secret: secretView(row) };
    } catch (err) {
      if (err instanceof SecretNameTaken) throw nameTaken(changes.name ?? '');
      throw err;
    }
  }

  @Handles(VaultService.method.deleteSecret)
  async delete(input: Req<'deleteSecret'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'vault:manage');
    if (!isUuid(input.id) || !(await this.vault.delete(userId, input.id))) throw secretNotFound();
    return {};
  }

  @Handles(VaultService.method.listSecretAccesses)
  async accesses(input: Req<'listSecretAccesses'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'vault:manage');
    if (input.secretId && !isUuid(input.secretId)) throw secretNotFound();
    const limit = Math.min(Math.max(input.limit || VAULT_ACCESS_LOG_DEFAULT, 1), VAULT_ACCESS_LOG_MAX);
    const rows = await this.vault.accessesOf(userId, input.secretId || undefined, limit);
    return { accesses: rows.map(secretAccessView) };
  }

  /**
   * Opens the caller's own provider key for a model call. Using a key needs `chat:use`, not
   * `vault:manage`: a token that may chat uses its owner's key without being able to manage it.
   */
  @Handles(VaultService.method.resolveProviderKey)
  async resolveProviderKey(input: Req<'resolveProviderKey'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'chat:use');
    const row = input.provider ? await this.vault.findProviderKey(userId, input.provider) : null;
    if (!row) return { found: false, secretId: '', value: '' };
    let value: string;
    try {
      value = this.sealer.open(row, row.id);
    } catch {
      // Never the operator's key instead: the user chose to pay with theirs.
      throw secretUnreadable(
        `Your API key secret "${row.name}"`,
        'set its value again (PATCH /api/v1/vault/secrets/{id}), or ask the operator to restore the previous key',
      );
    }
    await this.vault.recordAccess({
      secretId: row.id,
      userId,
      secretName: row.name,
      purpose: 'model-call',
      detail: input.detail.slice(0, 300),
    });
    return { found: true, secretId: row.id, value };
  }
}
