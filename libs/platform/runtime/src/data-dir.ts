import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type AppConfig } from '@kw/platform-config';
import type { ComponentDefinition } from './component.js';

/**
 * DATA_DIR, for a process that keeps something in it: created when missing, and writable. A
 * path that cannot be a folder (`/dev/null/sub`) or one this process may not write is a
 * configuration error (exit 2, the variable named), found before anything starts instead of as
 * an ENOTDIR crash in whichever component writes first.
 */
export function checkDataDir(config: AppConfig, targets: ComponentDefinition[], known: ComponentDefinition[]): void {
  if (!usesDataDir(config, targets, known)) return;
  const dir = path.resolve(config.DATA_DIR);
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    throw new ConfigError([`DATA_DIR: ${dir} cannot be used as the data folder (${code ?? message})`]);
  }
}

/**
 * Who keeps something in DATA_DIR: the embedded database (no DATABASE_URL), the embedded mode's
 * generated secrets key (no SECRETS_ENCRYPTION_KEY), and files on local disk (no S3_BUCKET) in a
 * process serving them: the files component, or the API of a binary that has it. A distributed
 * process that needs none of them may run on a read-only file system.
 */
function usesDataDir(config: AppConfig, targets: ComponentDefinition[], known: ComponentDefinition[]): boolean {
  if (!config.DATABASE_URL) return true;
  if (config.RUN_MODE === 'embedded' && !config.SECRETS_ENCRYPTION_KEY) return true;
  const servesFiles = targets.some(
    (t) => t.name === 'files' || (t.name === 'gateway' && known.some((k) => k.name === 'files')),
  );
  return !config.S3_BUCKET && servesFiles;
}
