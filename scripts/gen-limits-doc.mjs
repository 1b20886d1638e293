#!/usr/bin/env node
// Writes the table of field limits in docs/limits.md (between its markers) from the registry in
// libs/contracts/src/limits/rules.ts, the one definition the service's hop, the REST DTOs and
// the MCP tools read.
//
//   node scripts/gen-limits-doc.mjs           rewrite the table in place
//   node scripts/gen-limits-doc.mjs --check   exit 1 if the committed table is stale
//
// libs/contracts/src/limits/limits-doc.spec.ts runs the same check in the test suite.
// The contracts lib is transpiled (TypeScript's transpileModule, no type check) into a cache
// folder inside node_modules, so its imports of @bufbuild/protobuf resolve.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SRC = path.join(ROOT, 'libs/contracts/src');
const OUT = path.join(ROOT, 'node_modules/.cache/gen-limits-doc');
const check = process.argv.includes('--check');

function transpile(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) transpile(file);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
      const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      const target = path.join(OUT, path.relative(SRC, file)).replace(/\.ts$/, '.js');
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, outputText);
    }
  }
}

fs.rmSync(OUT, { recursive: true, force: true });
transpile(SRC);
fs.writeFileSync(path.join(OUT, 'package.json'), '{"type":"module"}\n');
const { LIMITS_DOC_PATH, withLimitsTable } = await import(pathToFileURL(path.join(OUT, 'limits/doc.js')).href);

const docPath = path.join(ROOT, LIMITS_DOC_PATH);
const current = fs.readFileSync(docPath, 'utf8');
const fresh = withLimitsTable(current);
if (check) {
  if (fresh !== current) {
    process.stderr.write(`${LIMITS_DOC_PATH} is stale: run node scripts/gen-limits-doc.mjs\n`);
    process.exit(1);
  }
} else if (fresh !== current) {
  fs.writeFileSync(docPath, fresh);
  process.stdout.write(`gen-limits-doc: ${LIMITS_DOC_PATH} updated\n`);
}
