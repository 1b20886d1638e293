#!/usr/bin/env node
// Generates the Prisma clients of both planes, offline, into
// libs/platform/persistence/src/generated/<plane>/ (TypeScript, compiled by the build like
// any other source; not committed: the files embed this machine's absolute paths).
// Must run after `npm ci` and before build, lint (tsc) and tests.
// `engineType = "client"` needs no query-engine binary and `engine: 'js'` in the plane's
// prisma.config.ts keeps the CLI from downloading the schema engine.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const prismaCli = path.join(
  path.dirname(createRequire(import.meta.url).resolve('prisma/package.json')),
  'build',
  'index.js',
);
const quiet = Boolean(process.env.BUILD_QUIET);

for (const plane of ['control', 'data']) {
  const run = spawnSync(
    process.execPath,
    [prismaCli, 'generate', '--config', path.join(root, 'prisma', plane, 'prisma.config.ts')],
    {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        CHECKPOINT_DISABLE: '1',
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
      },
    },
  );
  if (run.status !== 0) {
    console.error(`prisma-generate: ${plane} failed:\n${run.stdout}${run.stderr}`);
    process.exit(1);
  }
  if (!quiet) console.error(`prisma-generate: ${plane} client generated`);
}
