import { invalidField as invalid } from '@kw/platform-errors';
import { VAULT_SECRET_TYPES, type VaultSecretType } from '../chat-limits.js';

/** Provider ids are the operator's provider ids (docs/chat.md): lower-case, digits, `-` and `_`. */
const PROVIDER = /^[a-z0-9][a-z0-9_-]*$/;

export function validSecretName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalid('name', 'must not be empty');
  return trimmed;
}

export function validProvider(provider: string, type: string): string {
  const trimmed = provider.trim().toLowerCase();
  if (trimmed && !PROVIDER.test(trimmed)) throw invalid('provider', 'must be a provider id like "openai"');
  // An api-key is used for model calls to its provider: without one it could never be used.
  if (type === 'api-key' && !trimmed) throw invalid('provider', 'is required for a secret of type api-key');
  return trimmed;
}

export function validValue(value: string): string {
  if (!value) throw invalid('value', 'must not be empty');
  return value;
}

/** The checks of a new secret beyond its field limits (which serve() enforces from the contract). */
export function validNewSecret(input: {
  name: string;
  type: string;
  provider: string;
  value: string;
  description: string;
}) {
  if (!(VAULT_SECRET_TYPES as readonly string[]).includes(input.type)) {
    throw invalid('type', `must be one of ${VAULT_SECRET_TYPES.join(', ')}`);
  }
  const provider = validProvider(input.provider, input.type);
  validValue(input.value);
  return {
    name: validSecretName(input.name),
    type: input.type as VaultSecretType,
    provider,
    description: input.description,
  };
}
