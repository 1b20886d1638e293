import { existsSync } from 'node:fs';
import { describe } from 'vitest';

/**
 * Real backing services for tests. URLs come from the environment (CI sets them); without
 * them a suite is skipped with the reason printed, unless REQUIRE_SERVICES is set (CI), in
 * which case a missing service fails the run instead of silently skipping.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? process.env.NATS_URL;
const REQUIRED = ['1', 'true'].includes(String(process.env.REQUIRE_SERVICES ?? '').toLowerCase());

/** Debian's Chromium, for the browser tests (never a browser a test tool downloads). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

type Need = 'postgres' | 'nats' | 'chromium';
const HOW: Record<Need, string> = {
  postgres: 'set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres) to run it',
  nats: 'set NATS_URL (e.g. nats://127.0.0.1:4222, JetStream on) to run it',
  chromium: `install Debian's chromium package (or set CHROMIUM_PATH) to run it`,
};

function missing(needs: Need[]): Need[] {
  return needs.filter((n) =>
    n === 'postgres' ? !TEST_DATABASE_URL : n === 'nats' ? !TEST_NATS_URL : !existsSync(CHROMIUM_PATH),
  );
}

/** `describe` that runs only when the named services are configured. */
export function describeWith(needs: Need[], name: string, fn: () => void): void {
  const absent = missing(needs);
  if (absent.length === 0) {
    describe(name, fn);
    return;
  }
  const reason = absent.map((n) => `${n}: ${HOW[n]}`).join('; ');
  if (REQUIRED) {
    describe(name, () => {
      throw new Error(`REQUIRE_SERVICES is set but ${reason}`);
    });
    return;
  }
  console.warn(`[skipped] ${name}: ${reason}`);
  describe.skip(name, fn);
}
