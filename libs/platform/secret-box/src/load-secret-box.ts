import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError, type AppConfig } from '@kw/platform-config';
import { EnvelopeSealer } from './envelope.js';
import { SecretBox, parseKey } from './secret-box.js';

export const SECRET_BOX = Symbol('SECRET_BOX');
const KEY_FILE = 'secrets.key';

/**
 * The deployment's SecretBox: SECRETS_ENCRYPTION_KEY (with SECRETS_ENCRYPTION_KEY_PREVIOUS
 * still opening older values), or the embedded fallback of `loadMasterKeys`.
 */
export function loadSecretBox(
  config: AppConfig,
  component: string,
  warn: (msg: string) => void = () => undefined,
): SecretBox {
  return new SecretBox(loadMasterKeys(config, component, warn));
}

/**
 * The deployment's EnvelopeSealer, from the same master keys as `loadSecretBox`: new data keys
 * are wrapped by SECRETS_ENCRYPTION_KEY, and SECRETS_ENCRYPTION_KEY_PREVIOUS still unwraps the
 * ones wrapped before a key change (until they are re-wrapped).
 */
export function loadEnvelopeSealer(
  config: AppConfig,
  component: string,
  warn: (msg: string) => void = () => undefined,
): EnvelopeSealer {
  return new EnvelopeSealer(loadMasterKeys(config, component, warn));
}

/**
 * The deployment's master keys, current first: SECRETS_ENCRYPTION_KEY, then
 * SECRETS_ENCRYPTION_KEY_PREVIOUS when set. Without them, the embedded mode keeps a generated
 * key in DATA_DIR/secrets.key (mode 0600) so `npm start` needs no setup; the distributed mode
 * refuses to start, since replicas would each invent a different key.
 */
export function loadMasterKeys(
  config: AppConfig,
  component: string,
  warn: (msg: string) => void = () => undefined,
): Buffer[] {
  if (config.SECRETS_ENCRYPTION_KEY) {
    const keys = [parseKey(config.SECRETS_ENCRYPTION_KEY)];
    if (config.SECRETS_ENCRYPTION_KEY_PREVIOUS) keys.push(parseKey(config.SECRETS_ENCRYPTION_KEY_PREVIOUS));
    return keys;
  }
  if (config.RUN_MODE === 'distributed') {
    // A configuration error (exit code 2): supervisors do not restart the process for it.
    throw new ConfigError([
      `SECRETS_ENCRYPTION_KEY is required by the ${component} component when RUN_MODE=distributed (32 bytes: 64 hex characters or base64; e.g. \`openssl rand -hex 32\`)`,
    ]);
  }
  if (config.DATABASE_URL) {
    warn(
      `${component}: SECRETS_ENCRYPTION_KEY is unset; secrets in the external database are sealed with a key kept in DATA_DIR/${KEY_FILE}: losing that folder makes them unreadable`,
    );
  }
  return [embeddedKey(config.DATA_DIR)];
}

function embeddedKey(dataDir: string): Buffer {
  const file = path.resolve(dataDir, KEY_FILE);
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    // 'wx': two components starting together never overwrite each other's key.
    writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  chmodSync(file, 0o600);
  return parseKey(readFileSync(file, 'utf8'));
}
