/**
 * The two data planes (design.md, "Where data lives"). Each lives in its own Postgres schema
 * so Cloud can keep both in one database, and each keeps its own `_prisma_migrations` there.
 */
export const PLANES = ['control', 'data'] as const;
export type Plane = (typeof PLANES)[number];

export const PLANE_SCHEMAS: Readonly<Record<Plane, string>> = { control: 'control', data: 'data' };

export function isPlane(value: string): value is Plane {
  return (PLANES as readonly string[]).includes(value);
}

/** Double-quoted SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
