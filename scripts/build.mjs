#!/usr/bin/env node
// Compiles apps/ and libs/ to dist/ with SWC (decorator metadata for NestJS, tsconfig path
// aliases rewritten to relative ESM imports). Type checking is `npm run lint`'s job.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { transformFile } from '@swc/core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsconfig = JSON.parse(readFileSync(path.join(root, 'tsconfig.base.json'), 'utf8'));
const outDir = path.join(root, 'dist');

const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    baseUrl: root,
    paths: tsconfig.compilerOptions.paths,
    keepClassNames: true,
  },
  module: { type: 'es6', resolveFully: true },
  sourceMaps: true,
  swcrc: false,
};

function* sources(dir) {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) {
      if (entry === 'node_modules' || entry === 'dist') continue;
      yield* sources(full);
    } else if (
      full.endsWith('.ts') &&
      !full.endsWith('.d.ts') &&
      !full.endsWith('.spec.ts') &&
      !full.endsWith('.test.ts')
    ) {
      yield full;
    }
  }
}

/** Version and commit for GET /api/version; the commit is unknown outside a git checkout (e.g. an image build). */
function buildInfo() {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  let commit = process.env.GIT_COMMIT ?? 'unknown';
  if (commit === 'unknown') {
    try {
      commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim();
    } catch {
      // not a git checkout
    }
  }
  return { version, commit, builtAt: new Date().toISOString() };
}

/** Prisma clients are generated, not committed: (re)generate when missing or older than a schema. */
function prismaClientsStale() {
  return ['control', 'data'].some((plane) => {
    const client = path.join(root, 'libs/platform/persistence/src/generated', plane, 'client.ts');
    const schema = path.join(root, 'prisma', plane, 'schema.prisma');
    return !existsSync(client) || statSync(client).mtimeMs < statSync(schema).mtimeMs;
  });
}

if (prismaClientsStale())
  execFileSync(process.execPath, [path.join(root, 'scripts/prisma-generate.mjs')], { stdio: 'inherit' });

rmSync(outDir, { recursive: true, force: true });
const started = Date.now();
let count = 0;
await Promise.all(
  ['apps', 'libs']
    .flatMap((top) => [...sources(path.join(root, top))])
    .map(async (file) => {
      const rel = path.relative(root, file);
      const target = path.join(outDir, rel.replace(/\.ts$/, '.js'));
      const { code, map } = await transformFile(file, {
        ...swcOptions,
        filename: file,
        sourceFileName: path.relative(path.dirname(target), file),
      });
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
      if (map) writeFileSync(`${target}.map`, map);
      count++;
    }),
);
writeFileSync(path.join(outDir, 'build-info.json'), JSON.stringify(buildInfo(), null, 2));
if (!process.env.BUILD_QUIET) console.error(`build: ${count} files compiled to dist/ in ${Date.now() - started} ms`);
