-- CreateTable
CREATE TABLE "workspace_moves" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "from_zone_id" UUID,
    "to_zone_id" UUID,
    "status" TEXT NOT NULL DEFAULT 'preparing',
    "leave_files_behind" BOOLEAN NOT NULL DEFAULT false,
    "target_ready_at" TIMESTAMPTZ(3),
    "source_frozen_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "leftover_removed_at" TIMESTAMPTZ(3),
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspace_moves_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "workspace_moves_workspace_id_created_at_idx" ON "workspace_moves"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "workspace_moves_from_zone_id_status_idx" ON "workspace_moves"("from_zone_id", "status");

-- CreateIndex
CREATE INDEX "workspace_moves_to_zone_id_status_idx" ON "workspace_moves"("to_zone_id", "status");

-- AddForeignKey
ALTER TABLE "workspace_moves" ADD CONSTRAINT "workspace_moves_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
