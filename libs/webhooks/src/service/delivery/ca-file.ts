import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { ConfigError } from '@kw/platform-config';

/**
 * The PEM certificates of WEBHOOKS_CA_FILE. A file that cannot be read or holds no certificate
 * is a configuration error (exit 2, the variable named), found at start-up rather than as a
 * crash while the component is built or as failing deliveries.
 */
export function readCaFile(file: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError([`WEBHOOKS_CA_FILE: cannot read ${file}${code ? ` (${code})` : ''}`]);
  }
  try {
    new X509Certificate(pem);
  } catch {
    throw new ConfigError([`WEBHOOKS_CA_FILE: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`]);
  }
  return pem;
}
