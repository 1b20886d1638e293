import {
  ControlPrisma,
  prismaClientProviders,
  PLANE_SCHEMAS,
  type ControlPrismaClient,
} from '@kw/platform-persistence';

/**
 * The component's one Prisma client of the control plane (one per module: PGlite has one connection).
 *
 * Transactions follow the transaction rule of docs/architecture.md, which
 * @kw/platform-persistence enforces (transaction-rule.ts).
 */
export const WORKSPACES_DB = Symbol('WORKSPACES_DB');
export const workspacesDbProviders = prismaClientProviders(WORKSPACES_DB, 'control', 'workspaces');
export type WorkspacesDb = ControlPrismaClient;
/** The client handed to an interactive transaction. */
export type WorkspacesTx = Omit<ControlPrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export const workspacesTable = ControlPrisma.raw(`"${PLANE_SCHEMAS.control}"."workspaces"`);

/**
 * Locks the workspace row until the transaction ends, so membership changes that check
 * "is there another owner?" cannot interleave (two owners demoting each other at once).
 */
export async function lockWorkspace(tx: WorkspacesTx, workspaceId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM ${workspacesTable} WHERE id = ${workspaceId}::uuid FOR UPDATE`;
}

/** Thrown inside a transaction to roll it back and answer `result` instead (see `refusing`). */
class Refusal<R> extends Error {
  constructor(readonly result: R) {
    super('refused');
  }
}

/**
 * Runs `body` in one interactive transaction; `refuse(result)` inside it rolls everything
 * back and makes the call answer `result` (a refusal the service turns into its error).
 */
export async function refusing<T, R>(
  db: WorkspacesDb,
  body: (tx: WorkspacesTx, refuse: (result: R) => never) => Promise<T>,
): Promise<T | R> {
  const refuse = (result: R): never => {
    throw new Refusal(result);
  };
  try {
    return await db.$transaction((tx) => body(tx, refuse));
  } catch (err) {
    if (err instanceof Refusal) return err.result as R;
    throw err;
  }
}
