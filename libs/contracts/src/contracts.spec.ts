import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const script = path.join(repo, 'scripts/gen-contracts.mjs');

function gen(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [script, ...args], { cwd: repo, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('generated contracts', () => {
  it('match proto/ (buf lint passes, regenerating changes nothing)', () => {
    const { status, output } = gen('--check');
    expect(output).toContain('up to date');
    expect(status).toBe(0);
  });

  describe('the staleness check', () => {
    let root = '';
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    /** A copy of the contracts' sources, so the check can be shown failing without touching the repo. */
    function fixture(): string {
      root = mkdtempSync(path.join(tmpdir(), 'kw-contracts-fixture-'));
      for (const entry of ['proto', 'buf.yaml', 'buf.gen.yaml', 'libs/contracts/src']) {
        cpSync(path.join(repo, entry), path.join(root, entry), { recursive: true });
      }
      symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'));
      return root;
    }

    it('fails when generated code was edited by hand', () => {
      const dir = fixture();
      appendFileSync(path.join(dir, 'libs/contracts/src/gen/kw/platform/v1/health_pb.ts'), '\n// edited\n');
      const { status, output } = gen('--check', '--root', dir);
      expect(status).toBe(1);
      expect(output).toContain('gen/kw/platform/v1/health_pb.ts');
    });

    it('fails when proto/ changed without regenerating, and passes once regenerated', () => {
      const dir = fixture();
      writeFileSync(
        path.join(dir, 'proto/kw/platform/v1/ping.proto'),
        'syntax = "proto3";\npackage kw.platform.v1;\nmessage Ping {\n  string id = 1;\n}\n',
      );
      const stale = gen('--check', '--root', dir);
      expect(stale.status).toBe(1);
      expect(stale.output).toContain('gen/kw/platform/v1/ping_pb.ts (missing)');
      expect(stale.output).toContain('index.ts');

      expect(gen('--root', dir).status).toBe(0);
      expect(gen('--check', '--root', dir).status).toBe(0);
    });

    it('refuses contracts that break the lint rules', () => {
      const dir = fixture();
      writeFileSync(
        path.join(dir, 'proto/kw/platform/v1/bad.proto'),
        'syntax = "proto3";\npackage kw.platform.v1;\nmessage bad_name {\n  string ID = 1;\n}\n',
      );
      const { status, output } = gen('--check', '--root', dir);
      expect(status).toBe(2);
      expect(output).toContain('buf lint failed');
      expect(output).toContain('should be PascalCase');
    });
  });
});
