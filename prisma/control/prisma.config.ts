// Prisma CLI config of the control plane (Postgres schema "control"). Use the scripts:
// scripts/prisma-generate.mjs and scripts/new-migration.mjs control <name>.
import { defineConfig } from 'prisma/config';
import { cliAdapter } from '../cli-adapter.js';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  adapter: cliAdapter('control'),
  schema: './schema.prisma',
  migrations: { path: './migrations' },
});
