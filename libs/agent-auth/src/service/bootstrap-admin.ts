import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigError, type AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { hashPassword } from './credentials/password-hasher.js';
import { classifyBearer, displayPrefixOf, generateToken, hashToken } from '../domain/tokens/token-format.js';
import { UsersRepository } from '../persistence/users.repository.js';
import { canonicalEmail } from '../domain/accounts/email.js';

const DEFAULT_EMBEDDED_ADMIN = 'admin@localhost';
/** Where generated first-admin secrets go when stdout is not a terminal (inside DATA_DIR). */
const FIRST_ADMIN_FILE = 'first-admin.txt';

interface FirstAdmin {
  email: string;
  password: string | undefined;
  token: string | undefined;
  /** Generated here (not given by the operator): printed once. */
  generated: boolean;
}

/**
 * Creates the first (platform administrator) account when the users table is empty:
 * from ADMIN_EMAIL / ADMIN_PASSWORD / ADMIN_TOKEN, or in embedded mode `admin@localhost`
 * with a random password and a fresh token, handed over once (printed in a terminal, else
 * written to a file: `announce`, `writeFile`); exactly one of the processes starting together
 * creates it (UsersRepository.createFirst). On a non-empty table the variables are ignored.
 */
@Injectable()
export class BootstrapAdmin implements OnApplicationBootstrap {
  constructor(
    private readonly users: UsersRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const admin = this.firstAdmin();
    if (!admin) {
      if (await this.users.isEmpty()) {
        this.logger.warn(
          {},
          'no accounts exist and ADMIN_EMAIL is not set: set ADMIN_EMAIL with ADMIN_PASSWORD and/or ADMIN_TOKEN to create the first administrator',
        );
      }
      return;
    }
    // Generated secrets that could not reach the operator would leave an account nobody can use:
    // the file is written before the account exists (and removed if another process made it).
    const file =
      admin.generated && !process.stdout.isTTY && (await this.users.isEmpty()) ? this.writeFile(admin) : undefined;
    // Hashing is slow; do it before taking the lock so the transaction stays short.
    const passwordHash = admin.password ? await hashPassword(admin.password) : null;
    const token = admin.token
      ? { tokenHash: hashToken(admin.token), displayPrefix: displayPrefixOf(admin.token) }
      : undefined;
    const created = await this.users
      .createFirst(
        { email: admin.email, displayName: 'Administrator', passwordHash, platformAdmin: true },
        token && { name: 'bootstrap admin token', ...token, scopes: ['*'] },
      )
      .catch((err: unknown) => {
        if (file) rmSync(file, { force: true });
        throw err;
      });
    if (!created) {
      if (file) rmSync(file, { force: true });
      if (this.config.ADMIN_EMAIL)
        this.logger.info({}, 'accounts already exist: ADMIN_EMAIL, ADMIN_PASSWORD and ADMIN_TOKEN are ignored');
      return;
    }
    this.logger.info(
      { email: admin.email, withPassword: !!passwordHash, withToken: !!token },
      'first platform administrator created',
    );
    if (!admin.generated) return;
    if (file)
      this.logger.warn(
        { file },
        "the first administrator's generated password and access token are in this file (readable by this account only): store them, then delete the file",
      );
    else this.announce(admin);
  }

  private firstAdmin(): FirstAdmin | undefined {
    const { ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_TOKEN } = this.config;
    if (ADMIN_TOKEN && classifyBearer(ADMIN_TOKEN) === 'malformed') {
      // A kwp_ value with a wrong checksum would be refused at every request.
      throw new Error(
        'ADMIN_TOKEN starts with kwp_ but is not a valid kwp_ token; use another value of 32+ characters',
      );
    }
    if (ADMIN_EMAIL) {
      const generated = !ADMIN_PASSWORD && !ADMIN_TOKEN;
      return {
        email: canonicalEmail(ADMIN_EMAIL),
        password: generated ? randomBytes(18).toString('base64url') : ADMIN_PASSWORD,
        token: generated ? generateToken().token : ADMIN_TOKEN,
        generated,
      };
    }
    if (this.config.RUN_MODE !== 'embedded') return undefined;
    return {
      email: DEFAULT_EMBEDDED_ADMIN,
      password: randomBytes(18).toString('base64url'),
      token: generateToken().token,
      generated: true,
    };
  }

  /**
   * In a terminal (`npm start`): one block on stdout, between the log lines, so the person who
   * started the platform cannot miss it. Only there: a stdout that is no terminal is a log stream
   * that shippers store (see `writeFile`).
   */
  private announce(admin: FirstAdmin): void {
    const lines = [
      '',
      '='.repeat(78),
      '  First platform administrator created. These secrets are shown ONCE:',
      '',
      ...this.credentials(admin),
      '',
      '  Use the token as "Authorization: Bearer <token>". Store it now.',
      '='.repeat(78),
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }

  /**
   * Without a terminal (a container, a service manager, a pipe): the secrets go to
   * DATA_DIR/first-admin.txt, mode 0600, and the log names only the file. A DATA_DIR this
   * process cannot write is a configuration error: set ADMIN_PASSWORD and ADMIN_TOKEN instead.
   */
  private writeFile(admin: FirstAdmin): string {
    const file = path.resolve(this.config.DATA_DIR, FIRST_ADMIN_FILE);
    const text = [
      'First platform administrator. Store these secrets, then delete this file.',
      '',
      ...this.credentials(admin),
      '',
      'Use the token as "Authorization: Bearer <token>".',
      '',
    ].join('\n');
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      // A file left from an earlier database holds nothing valid; 'wx' then creates it with 0600.
      rmSync(file, { force: true });
      writeFileSync(file, text, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      throw new ConfigError([
        `DATA_DIR: the first administrator's generated password and token cannot be written to ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); make DATA_DIR writable, or set ADMIN_PASSWORD and ADMIN_TOKEN`,
      ]);
    }
    return file;
  }

  private credentials(admin: FirstAdmin): string[] {
    return [
      `  email:        ${admin.email}`,
      `  password:     ${admin.password}`,
      `  access token: ${admin.token}`,
      `  sign in:      POST ${this.signInUrl()}`,
    ];
  }

  /** With PORT=0 the port is chosen after start-up; the "ready" log line then carries the URL. */
  private signInUrl(): string {
    const origin =
      this.config.PORT === 0 && !this.config.PUBLIC_URL ? '<url of the ready line>' : this.config.publicUrl;
    return `${origin}/api/auth/sign-in`;
  }
}
