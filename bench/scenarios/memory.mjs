// 7. Resident memory (VmRSS from /proc/<pid>/status) of each service process after its
// scenarios ran: the embedded process, each app of the distributed run (children of
// scripts/run-distributed.mjs, named by dist/apps/<name>/src/main.js), and for reference the
// bare Fastify + pg baseline process.
import { rssMb } from '../lib.mjs';

export function memoryCollector() {
  const rows = [];
  return {
    rows,
    /** One process, by pid (skipped, and said so, when it is already gone). */
    sample(name, pid) {
      const mb = rssMb(pid);
      if (mb === undefined) console.error(`bench: memory: ${name} (pid ${pid}) is gone`);
      else rows.push({ process: name, pid, rssMb: mb });
    },
    /** Every process of a started platform (platforms.mjs), prefixed with its mode. */
    platform(platform, label = platform.mode) {
      for (const p of platform.processes()) this.sample(`${label}: ${p.name}`, p.pid);
    },
  };
}
