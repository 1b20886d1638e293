import { createHash } from 'node:crypto';

/** Embed key tokens: recognisable (`kwek_`), 256 random bits, stored and looked up as SHA-256 only. */
export const EMBED_KEY_PREFIX = 'kwek_';
export const hashEmbedKey = (token: string) => createHash('sha256').update(token).digest('hex');
