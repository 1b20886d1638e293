import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';
import { readFileSync } from 'node:fs';
import path from 'node:path';

// Path aliases come from tsconfig.base.json so there is one list of them.
const tsconfig = JSON.parse(readFileSync(new URL('./tsconfig.base.json', import.meta.url), 'utf8'));
const alias = Object.fromEntries(
  Object.entries(tsconfig.compilerOptions.paths as Record<string, string[]>).map(([name, [target]]) => [
    name,
    path.resolve(target),
  ]),
);

/** Specs that replace a module with vi.mock: they need a module graph of their own. */
const MOCKING_SPECS = ['libs/leaf/src/service/credentials/handoff-authenticator.spec.ts'];

export default defineConfig({
  plugins: [
    swc.vite({
      swcrc: false,
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
      module: { type: 'es6' },
    }),
  ],
  resolve: { alias },
  test: {
    // The unit specs of libs/ and apps/ share one module graph per worker (isolate: false): each
    // file otherwise loads Nest, Prisma and the rest again, about half their run time. They keep
    // no module-level state between files (fake timers are restored after each test); a spec that
    // mocks a module (vi.mock) needs its own graph and stays isolated, with the end-to-end suite.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts'],
          exclude: [...MOCKING_SPECS, '**/node_modules/**'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.spec.ts', ...MOCKING_SPECS],
          // One embedded database cluster, copied into each test's new data folder (startEmbedded).
          globalSetup: ['test/support/cluster-template.ts'],
        },
      },
    ],
    // An embedded platform takes about 10 s to start on an idle 2-core machine (PGlite, migrations)
    // and several times that while the other worker starts a distributed one: tests that start
    // platforms need the room. These bound hangs; they are not performance assertions.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results.json' }]] : ['default'],
  },
});
