-- The in-process vector index reads, per query, only the embedding runs a workspace got since its
-- last read: a range of (workspace_id, created_at). The index serves the workspace-only lookups too.

-- DropIndex
DROP INDEX "fragment_chunks_workspace_id_idx";

-- CreateIndex
CREATE INDEX "fragment_chunks_workspace_id_created_at_idx" ON "fragment_chunks"("workspace_id", "created_at");
