import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

/**
 * The component layout of docs/architecture.md, as far as lint enforces it: only persistence/
 * reaches the database, and the HTTP edge never imports persistence/. Virtual files placed in
 * a real component, so these fail if the rule stops applying to it.
 */
describe('component layout', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  async function layoutViolations(file: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(source, { filePath: path.join(ROOT, file) });
    return result.messages
      .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
      .map((m) => m.message);
  }

  // Every domain component, the empty ones (chat, files) included: they start under the rules.
  const components = ['agent-auth', 'chat', 'files', 'fragments', 'leaf', 'mcp', 'search', 'webhooks', 'workspaces'];

  it.each(components)('%s: a handler may not import a database client or the pool', async (component) => {
    for (const source of [
      "import pg from 'pg';\nexport const x = pg;\n",
      "import { DATABASE } from '@kw/platform-runtime';\nexport const x = DATABASE;\n",
      "import { createPrismaClient } from '@kw/platform-persistence';\nexport const x = createPrismaClient;\n",
      "import { DB } from '../persistence/some-database.js';\nexport const x = DB;\n",
    ]) {
      expect(await layoutViolations(`libs/${component}/src/service/extra.ts`, source), source).not.toEqual([]);
    }
  });

  it.each(components)('%s: SQL outside persistence/ is refused', async (component) => {
    const source = 'export const run = (db: any) => db.$queryRaw`SELECT 1`;\n';
    expect(await layoutViolations(`libs/${component}/src/events/extra.ts`, source)).toEqual([
      'SQL lives in repository files under persistence/ (docs/architecture.md).',
    ]);
  });

  it.each(components)('%s: the HTTP edge may not import persistence/', async (component) => {
    const source = "import { x } from '../persistence/some.repository.js';\nexport const y = x;\n";
    expect(await layoutViolations(`libs/${component}/src/http/extra.ts`, source)).not.toEqual([]);
  });

  it.each(components)('%s: only the service module registers the Prisma client of persistence/', async (component) => {
    const source = "import { DB } from '../persistence/some-database.js';\nexport const x = DB;\n";
    expect(await layoutViolations(`libs/${component}/src/service/${component}-service.module.ts`, source)).toEqual([]);
    expect(await layoutViolations(`libs/${component}/src/http/${component}-http.module.ts`, source)).not.toEqual([]);
  });

  it('handler files are <noun>.handlers.ts and export <Noun>Handlers, named after the file', () => {
    const files = execFileSync('git', ['ls-files', 'libs/*/src/**/*.ts', 'libs/*/src/*.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /(^|\/)[\w-]+\.handlers?\.ts$/.test(f));
    expect(files.filter((f) => f.endsWith('.handler.ts'))).toEqual([]);
    const misnamed = files.flatMap((file) => {
      const stem = path.basename(file, '.handlers.ts');
      const want = stem
        .split('-')
        .map((part) => part[0]!.toUpperCase() + part.slice(1))
        .join('');
      const found = /^export class (\w+)/m.exec(readFileSync(path.join(ROOT, file), 'utf8'))?.[1];
      return found === `${want}Handlers` ? [] : [`${file}: ${found ?? 'no exported class'}, not ${want}Handlers`];
    });
    expect(files.length).toBeGreaterThan(20);
    expect(misnamed).toEqual([]);
  });

  it('persistence/ may do all of it', async () => {
    const source =
      "import pg from 'pg';\nimport { DATABASE } from '@kw/platform-runtime';\n" +
      'export const run = (db: any) => db.$queryRaw`SELECT 1`;\nexport const x = [pg, DATABASE];\n';
    expect(await layoutViolations('libs/agent-auth/src/persistence/extra.repository.ts', source)).toEqual([]);
  });
});
