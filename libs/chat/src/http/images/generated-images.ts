import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { BLOB_STORAGE, BlobNotFoundError, type BlobStorage } from '@kw/platform-storage';

const PREFIX = 'chat-images/';
/** `<expiry, epoch seconds>-<64 hex characters>`: 256 random bits, and the expiry is part of the key. */
const NAME = /^([0-9]{10})-([0-9a-f]{64})$/;
const SWEEP_EVERY_MS = 10 * 60 * 1000;

/**
 * Generated images served by URL (response_format=url): stored in blob storage under a name that
 * holds 256 random bits and the expiry, so the URL is unguessable, and an edited expiry names a
 * blob that does not exist. Expired images are swept periodically.
 */
@Injectable()
export class GeneratedImages implements OnModuleDestroy {
  private lastSweep = 0;

  constructor(
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Stores the image and returns its name for the URL. */
  async store(png: Buffer): Promise<string> {
    const expires = Math.floor(Date.now() / 1000) + this.config.CHAT_IMAGE_URL_TTL_SECONDS;
    const name = `${expires}-${randomBytes(32).toString('hex')}`;
    await this.storage.put(PREFIX + name, Readable.from([png]), { contentType: 'image/png' });
    this.maybeSweep();
    return name;
  }

  /** The image's bytes, or null when the name is malformed, expired or unknown. */
  async open(name: string): Promise<Readable | null> {
    const match = NAME.exec(name);
    if (!match || Number(match[1]) * 1000 < Date.now()) return null;
    try {
      return await this.storage.get(PREFIX + name);
    } catch (err) {
      if (err instanceof BlobNotFoundError) return null;
      throw err;
    }
  }

  onModuleDestroy(): void {
    this.lastSweep = Infinity;
  }

  private maybeSweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    void (async () => {
      for await (const blob of this.storage.list(PREFIX)) {
        const match = NAME.exec(blob.key.slice(PREFIX.length));
        if (!match || Number(match[1]) * 1000 < now) await this.storage.delete(blob.key);
      }
    })().catch((err: unknown) => this.logger.warn({ err }, 'chat: sweeping expired images failed'));
  }
}
