// Prisma CLI config of the data plane (Postgres schema "data"). Use the scripts:
// scripts/prisma-generate.mjs and scripts/new-migration.mjs data <name>.
import { defineConfig } from 'prisma/config';
import { cliAdapter } from '../cli-adapter.js';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  adapter: cliAdapter('data'),
  schema: './schema.prisma',
  migrations: { path: './migrations' },
});
