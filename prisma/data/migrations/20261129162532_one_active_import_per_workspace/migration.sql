-- One import at a time per workspace (docs/portable-workspaces.md): at most one import job
-- uploading or processing in a workspace, so two imports cannot race for the same records.
-- Hand-written: Prisma has no partial indexes. Imports already running side by side keep the
-- newest, and the others are failed as a restart would fail them.
UPDATE "workspace_transfers" AS t
   SET "status" = 'failed', "error" = 'interrupted: the process running it stopped', "finished_at" = now()
 WHERE t."kind" = 'import' AND t."status" IN ('uploading', 'processing')
   AND EXISTS (SELECT 1 FROM "workspace_transfers" AS n
                WHERE n."workspace_id" = t."workspace_id" AND n."kind" = 'import'
                  AND n."status" IN ('uploading', 'processing')
                  AND (n."created_at", n."id") > (t."created_at", t."id"));

CREATE UNIQUE INDEX "workspace_transfers_one_active_import_idx" ON "workspace_transfers" ("workspace_id")
  WHERE "kind" = 'import' AND "status" IN ('uploading', 'processing');
