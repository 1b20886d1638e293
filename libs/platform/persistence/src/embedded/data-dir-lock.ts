import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * PGlite does not stop a second process from opening the same data folder, and two of them
 * would corrupt it. This pid file does: it is taken over only when its process is gone.
 */
export function lockDataDir(lockFile: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => rmSync(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(lockFile, 'utf8').trim());
      if (holder && isAlive(holder)) {
        throw new Error(
          `The embedded database is in use by process ${holder} (${lockFile}). Stop it or use another DATA_DIR; if that process is not this platform, delete the file.`,
        );
      }
      rmSync(lockFile, { force: true }); // stale: its process ended without cleaning up
    }
  }
  throw new Error(`Could not lock ${lockFile}`);
}

/** Whether a process with this pid exists (EPERM: it does, owned by another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
