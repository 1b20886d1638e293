import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  version: string;
  commit: string;
  builtAt: string;
}

/** The repository (or image) root: the nearest folder above this file with a package.json. */
export function findProjectRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

let cached: BuildInfo | undefined;

/** Written by scripts/build.mjs into dist/build-info.json; falls back to package.json when run from source. */
export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const root = findProjectRoot();
  const file = path.join(root, 'dist', 'build-info.json');
  if (existsSync(file)) {
    cached = JSON.parse(readFileSync(file, 'utf8')) as BuildInfo;
  } else {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    cached = { version: pkg.version, commit: 'unknown', builtAt: 'unknown' };
  }
  return cached;
}
