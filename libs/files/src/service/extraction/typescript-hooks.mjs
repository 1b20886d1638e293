// Module hooks that let the extraction worker run from its TypeScript sources (under vitest;
// run-extraction.ts registers them in the worker thread, see workerEntry there). dist/ holds
// compiled .js and never uses them.
//
// They transpile with the TypeScript compiler, not @swc/core: swc's native addon crashes the
// process (SIGSEGV) once a second thread that loaded it exits, and every worker has its own hooks
// thread. Loading TypeScript takes most of a second, so output is cached in the OS temp folder,
// keyed by the compiler version and the source: only a changed file pays for it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const compilerVersion = JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8')).version;
const cacheDir = path.join(tmpdir(), 'kw-extraction-worker-ts');

// The workspace's `@kw/*` aliases (tsconfig.base.json), which dist/ has rewritten to relative imports.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const aliases = new Map(
  Object.entries(JSON.parse(readFileSync(path.join(root, 'tsconfig.base.json'), 'utf8')).compilerOptions.paths).map(
    ([alias, [target]]) => [alias, new URL(`file://${path.join(root, target)}`).href],
  ),
);

/** Relative imports name the compiled `.js`; from a `.ts` module, the source beside it is the `.ts`. */
export async function resolve(specifier, context, nextResolve) {
  const aliased = aliases.get(specifier);
  if (aliased) return { url: aliased, shortCircuit: true };
  if (context.parentURL?.endsWith('.ts') && specifier.startsWith('.') && specifier.endsWith('.js')) {
    const source = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (existsSync(fileURLToPath(source))) return { url: source.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const source = readFileSync(fileURLToPath(url), 'utf8');
  const key = createHash('sha256').update(`${compilerVersion}\0${url}\0${source}`).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  if (!existsSync(cached)) {
    const { default: ts } = await import('typescript');
    const { outputText } = ts.transpileModule(source, {
      fileName: fileURLToPath(url),
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, inlineSourceMap: true },
    });
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(partial, outputText);
    renameSync(partial, cached); // atomic: concurrent workers never read half a file
  }
  return { format: 'module', source: readFileSync(cached, 'utf8'), shortCircuit: true };
}
