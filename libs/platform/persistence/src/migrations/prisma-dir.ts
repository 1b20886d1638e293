import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The top-level `prisma/` folder holding the committed migrations. The build compiles only
 * .ts into dist/, so the SQL stays in the repository (or the image) next to package.json:
 * walk up from this module, which works from source (vitest) and from dist/ alike.
 */
export function findPrismaDir(start: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = path.resolve(start);
  for (;;) {
    const candidate = path.join(dir, 'prisma');
    if (existsSync(path.join(dir, 'package.json')) && existsSync(candidate) && statSync(candidate).isDirectory())
      return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(
        `No prisma/ folder found: looked for a folder holding package.json and prisma/ from ${start} upwards. Ship prisma/ next to package.json or pass prismaDir.`,
      );
    }
    dir = parent;
  }
}
