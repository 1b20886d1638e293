/**
 * The workspaces a caller's credential reaches (undefined: every one of its user's). Experts and
 * embed configurations over any other workspace are outside every read and write of that caller:
 * a token restricted to workspace A finds nothing of B (docs/chat.md).
 */
export type Reach = readonly string[] | undefined;

/** The Prisma condition keeping a query's rows to those over a reached workspace. */
export const withinReach = (reach: Reach) => (reach ? { workspaceId: { in: [...reach] } } : {});
