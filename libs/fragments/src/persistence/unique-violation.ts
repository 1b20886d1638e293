/** Whether an error is a unique-constraint violation: Prisma's P2002, or SQLSTATE 23505 from a `pg` statement. */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'P2002' || code === '23505';
}
