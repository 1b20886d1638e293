import type { ControlPrisma } from '@kw/platform-persistence';

export type UserRow = ControlPrisma.UserModel;
export type TokenRow = ControlPrisma.PersonalAccessTokenModel;
export type SessionRow = ControlPrisma.SessionModel;

/** Postgres unique violation, as Prisma reports it. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2002';
}
