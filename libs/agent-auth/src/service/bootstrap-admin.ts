import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { AppConfig } from '@kw/platform-config';
import type { Logger } from '@kw/platform-observability';
import { APP_CONFIG, LOGGER } from '@kw/platform-runtime';
import { hashPassword } from './credentials/password-hasher.js';
import { classifyBearer, displayPrefixOf, generateToken, hashToken } from '../domain/tokens/token-format.js';
import { UsersRepository } from '../persistence/users.repository.js';
import { canonicalEmail } from '../domain/accounts/email.js';

const DEFAULT_EMBEDDED_ADMIN = 'admin@localhost';

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
 * with a random password and a fresh token, printed once; exactly one of the processes
 * starting together creates it (UsersRepository.createFirst). On a non-empty table the
 * variables are ignored.
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
    // Hashing is slow; do it before taking the lock so the transaction stays short.
    const passwordHash = admin.password ? await hashPassword(admin.password) : null;
    const token = admin.token
      ? { tokenHash: hashToken(admin.token), displayPrefix: displayPrefixOf(admin.token) }
      : undefined;
    const created = await this.users.createFirst(
      { email: admin.email, displayName: 'Administrator', passwordHash, platformAdmin: true },
      token && { name: 'bootstrap admin token', ...token, scopes: ['*'] },
    );
    if (!created) {
      if (this.config.ADMIN_EMAIL)
        this.logger.info({}, 'accounts already exist: ADMIN_EMAIL, ADMIN_PASSWORD and ADMIN_TOKEN are ignored');
      return;
    }
    this.logger.info(
      { email: admin.email, withPassword: !!passwordHash, withToken: !!token },
      'first platform administrator created',
    );
    if (admin.generated) this.announce(admin);
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

  /** One block on stdout, outside the JSON log stream, so an operator cannot miss it. */
  private announce(admin: FirstAdmin): void {
    const lines = [
      '',
      '='.repeat(78),
      '  First platform administrator created. These secrets are shown ONCE:',
      '',
      `  email:        ${admin.email}`,
      `  password:     ${admin.password}`,
      `  access token: ${admin.token}`,
      `  sign in:      POST ${this.signInUrl()}`,
      '',
      '  Use the token as "Authorization: Bearer <token>". Store it now.',
      '='.repeat(78),
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }

  /** With PORT=0 the port is chosen after start-up; the "ready" log line then carries the URL. */
  private signInUrl(): string {
    const origin =
      this.config.PORT === 0 && !this.config.PUBLIC_URL ? '<url of the ready line>' : this.config.publicUrl;
    return `${origin}/api/auth/sign-in`;
  }
}
