import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { transformFile } from '@swc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// runExtraction as it runs from dist/: these folders compiled the way scripts/build.mjs compiles
// them (same relative layout, .ts -> .js), then run by plain node in a child process, where no
// TypeScript hooks exist. A scratch copy rather than dist/ itself: building dist/ removes it
// first, under the feet of other specs that start apps from it.
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
// With the platform libraries the worker imports (their `@kw/*` aliases rewritten, as the build does).
const FOLDERS = ['libs/files/src/service/extraction', 'libs/files/src/domain', 'libs/platform/zip/src'];
const PATHS = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.base.json'), 'utf8')).compilerOptions.paths;
let out: string;

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), 'kw-extraction-dist-'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules')); // packages resolve as from dist/
  for (const folder of FOLDERS) {
    for (const file of readdirSync(path.join(ROOT, folder)).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'),
    )) {
      const { code } = await transformFile(path.join(ROOT, folder, file), {
        swcrc: false,
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022', baseUrl: ROOT, paths: PATHS },
        module: { type: 'es6', resolveFully: true },
      });
      mkdirSync(path.join(out, folder), { recursive: true });
      writeFileSync(path.join(out, folder, file.replace(/\.ts$/, '.js')), code);
    }
  }
});

afterAll(() => rmSync(out, { recursive: true, force: true }));

const CHILD = `
const [runUrl, limitsUrl, fixtures] = process.argv.slice(1);
const { readFileSync } = await import('node:fs');
const { runExtraction } = await import(runUrl);
const { DEFAULT_EXTRACTION_LIMITS } = await import(limitsUrl);
const read = (name) => new Uint8Array(readFileSync(fixtures + name));
const bomb = await runExtraction(read('zip-bomb.docx'), 'docx', DEFAULT_EXTRACTION_LIMITS).catch((e) => e.reason);
const pdf = await runExtraction(read('sample.pdf'), 'pdf', DEFAULT_EXTRACTION_LIMITS);
console.log(JSON.stringify({ bomb, pdf }));
`;

describe('runExtraction compiled to JavaScript', () => {
  it('starts extraction-worker.js beside it under plain node', async () => {
    const compiled = (file: string) => pathToFileURL(path.join(out, 'libs/files/src/service/extraction', file)).href;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '--eval',
      CHILD,
      compiled('run-extraction.js'),
      compiled('extraction-limits.js'),
      path.join(ROOT, 'test/fixtures/files/'),
    ]);
    const { bomb, pdf } = JSON.parse(stdout);
    expect(bomb).toBe('archive_too_large');
    expect(pdf).toMatchObject({ pages: 2, truncated: false });
    expect(pdf.text).toContain('zanzibarite');
  });
});
