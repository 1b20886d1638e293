#!/usr/bin/env node
// The npm registry reachable here does not serve some platform builds of native packages
// (e.g. @swc/core-darwin-arm64): `npm install` then leaves them out of package-lock.json and
// `npm ci` refuses the lockfile as out of sync. This adds their lockfile entries, with the
// os/cpu npm needs to skip them on other machines (never downloaded here). Run it after any
// `npm install` that changes the lockfile: `node scripts/lockfile-platform-stubs.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lockPath = path.join(root, 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));

/** os/cpu of a platform package, read from its name (the convention of swc, buf, nx, esbuild...). */
function platformOf(name) {
  const os = ['darwin', 'linux', 'win32', 'freebsd', 'android'].find((o) => name.includes(`-${o}-`));
  const cpu = ['arm64', 'x64', 'ia32', 'armv7', 'arm', 'ppc64', 's390x', 'riscv64'].find((c) =>
    new RegExp(`-${c}(-|$)`).test(name),
  );
  return os && cpu ? { os: [os], cpu: [cpu === 'armv7' ? 'arm' : cpu] } : undefined;
}

let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = key ? `${key}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[`node_modules/${name}`] || lock.packages[base]) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    lock.packages[`node_modules/${name}`] = { version, optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lockfile-platform-stubs: added ${added} entr${added === 1 ? 'y' : 'ies'}`);
