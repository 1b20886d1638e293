-- AlterTable
ALTER TABLE "workspace_transfers" ADD COLUMN     "lease_until" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "workspace_transfers_status_lease_until_idx" ON "workspace_transfers"("status", "lease_until");

-- Jobs running while this migrates were started by a version that holds no lease: they get
-- half an hour before another process may fail them as interrupted (docs/portable-workspaces.md).
UPDATE "workspace_transfers" SET "lease_until" = now() + interval '30 minutes'
 WHERE "status" IN ('uploading', 'processing');
