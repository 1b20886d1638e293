import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

/**
 * The architecture rules of the README are enforced by lint. These cases lint virtual files
 * placed in real projects, so they fail if the rule stops running (no project graph) or if a
 * boundary is loosened.
 */
describe('module boundaries', () => {
  let eslint: ESLint;

  beforeAll(() => {
    // The Nx rule reads the cached project graph; `npm run lint` builds it the same way.
    execFileSync(path.join(ROOT, 'node_modules/.bin/nx'), ['show', 'projects'], {
      cwd: ROOT,
      env: { ...process.env, NX_DAEMON: 'false' },
      stdio: 'ignore',
    });
    eslint = new ESLint({ cwd: ROOT });
  }, 60_000);

  async function violations(file: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(source, { filePath: path.join(ROOT, file) });
    return result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
  }

  it('lets an app import domain and platform libraries', async () => {
    expect(
      await violations(
        'apps/fragments/src/extra.ts',
        "import { fragmentsComponent } from '@kw/fragments';\nimport { AppError } from '@kw/platform-errors';\nexport const x = [fragmentsComponent, AppError];\n",
      ),
    ).toEqual([]);
  });

  it('refuses a platform library importing a domain library', async () => {
    expect(
      await violations(
        'libs/platform/errors/src/extra.ts',
        "import { workspacesComponent } from '@kw/workspaces';\nexport const x = workspacesComponent;\n",
      ),
    ).not.toEqual([]);
  });

  it('refuses a domain library importing another domain library', async () => {
    expect(
      await violations(
        'libs/search/src/extra.ts',
        "import { fragmentsComponent } from '@kw/fragments';\nexport const x = fragmentsComponent;\n",
      ),
    ).not.toEqual([]);
  });

  it('refuses data-plane code importing control-plane code', async () => {
    expect(
      await violations(
        'apps/fragments/src/extra.ts',
        "import { workspacesComponent } from '@kw/workspaces';\nexport const x = workspacesComponent;\n",
      ),
    ).not.toEqual([]);
  });

  it('refuses contracts importing anything but contracts', async () => {
    expect(
      await violations(
        'libs/contracts/src/extra.ts',
        "import { AppError } from '@kw/platform-errors';\nexport const x = AppError;\n",
      ),
    ).not.toEqual([]);
  });
});
