import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// CI's closing lines come from scripts/test-summary.mjs reading Vitest's JSON report: what a
// reader of a failed run sees first, so its counts must be the tests that failed, nothing more.
const run = promisify(execFile);
const script = path.resolve('scripts/test-summary.mjs');

interface Outcome {
  code: number;
  out: string;
}

describe('scripts/test-summary.mjs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'test-summary-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function summarise(report: object): Promise<Outcome> {
    const file = path.join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(report));
    try {
      const { stdout, stderr } = await run(process.execPath, [script, file], { cwd: dir });
      return { code: 0, out: stdout + stderr };
    } catch (err) {
      const failed = err as { code: number; stdout: string; stderr: string };
      return { code: failed.code, out: failed.stdout + failed.stderr };
    }
  }

  const passing = (name: string) => ({ fullName: name, status: 'passed', failureMessages: [] });

  it('counts a failed test inside nested describe blocks once, and names it', async () => {
    // What Vitest wrote for one failed test two describe blocks deep: three "failed suites".
    const { code, out } = await summarise({
      numPassedTests: 2,
      numFailedTests: 1,
      numFailedTestSuites: 3,
      numPendingTests: 1,
      testResults: [
        {
          name: path.join(dir, 'test/e2e/hooks.spec.ts'),
          status: 'failed',
          assertionResults: [
            passing('hooks lists'),
            { fullName: 'hooks delivery signs', status: 'failed', failureMessages: ['\nAssertionError: no\n  at x'] },
          ],
        },
        { name: path.join(dir, 'test/other.spec.ts'), status: 'passed', assertionResults: [passing('other')] },
      ],
    });
    expect(code).toBe(1);
    expect(out).toContain('failed: test/e2e/hooks.spec.ts > hooks delivery signs: AssertionError: no\n');
    expect(out).toContain('tests: 2 passed, 1 failed, 1 skipped');
  });

  it('counts and names a file that failed without a failed test (it did not load)', async () => {
    const { code, out } = await summarise({
      numPassedTests: 1,
      numFailedTests: 0,
      numFailedTestSuites: 1,
      testResults: [
        {
          name: path.join(dir, 'test/broken.spec.ts'),
          status: 'failed',
          message: 'Failed to load url ./missing.js',
          assertionResults: [],
        },
        { name: path.join(dir, 'test/fine.spec.ts'), status: 'passed', assertionResults: [passing('fine')] },
      ],
    });
    expect(code).toBe(1);
    expect(out).toContain('failed: test/broken.spec.ts (the file): Failed to load url ./missing.js');
    expect(out).toContain('tests: 1 passed, 1 failed, 0 skipped');
  });

  it('passes a clean run and fails one that ran no test', async () => {
    const clean = await summarise({
      numPassedTests: 1,
      numFailedTests: 0,
      testResults: [{ name: path.join(dir, 'a.spec.ts'), status: 'passed', assertionResults: [passing('a')] }],
    });
    expect(clean).toEqual({ code: 0, out: 'tests: 1 passed, 0 failed, 0 skipped\n' });
    const empty = await summarise({ numPassedTests: 0, numFailedTests: 0, testResults: [] });
    expect(empty.code).toBe(1);
    expect(empty.out).toContain('no test ran');
  });
});
