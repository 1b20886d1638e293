import type { SecretAccess, SecretRecord } from '@kw/contracts';
import type { ModelInfo } from '@kw/platform-models';
import type { ModelDto } from './dto/models.dto.js';
import type { SecretAccessDto, SecretDto } from './dto/vault.dto.js';

/**
 * OpenAI's model `created` (unix seconds): the platform knows no creation time for a model (it is
 * discovered or configured, not created here), and a per-start time would differ between restarts
 * and instances, so it is a fixed 0.
 */
export const MODEL_CREATED = 0;

/** A catalog entry as OpenAI's model object plus the platform's metadata (never the provider's key or URL). */
export const modelView = (model: ModelInfo): ModelDto => ({
  id: model.id,
  object: 'model',
  created: MODEL_CREATED,
  owned_by: model.owned_by,
  display_name: model.display_name,
  modality: model.modality,
  capabilities: { ...model.capabilities },
});

export const secretDto = (secret: SecretRecord): SecretDto => ({
  id: secret.id,
  name: secret.name,
  type: secret.type,
  provider: secret.provider,
  description: secret.description,
  createdAt: secret.createdAt,
  updatedAt: secret.updatedAt,
});

export const secretAccessDto = (access: SecretAccess): SecretAccessDto => ({
  id: access.id,
  secretId: access.secretId,
  secretName: access.secretName,
  purpose: access.purpose,
  detail: access.detail,
  at: access.at,
});
