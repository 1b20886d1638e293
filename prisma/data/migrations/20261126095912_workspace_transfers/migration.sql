-- CreateTable
CREATE TABLE "workspace_transfers" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'processing',
    "done" INTEGER NOT NULL DEFAULT 0,
    "total" INTEGER NOT NULL DEFAULT 0,
    "archive_key" TEXT,
    "archive_bytes" BIGINT,
    "error" TEXT,
    "result" JSONB NOT NULL DEFAULT '{}',
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "workspace_transfers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "imported_records" (
    "workspace_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "target_id" UUID NOT NULL,

    CONSTRAINT "imported_records_pkey" PRIMARY KEY ("workspace_id","kind","source_id")
);

-- CreateIndex
CREATE INDEX "workspace_transfers_workspace_id_created_at_idx" ON "workspace_transfers"("workspace_id", "created_at");
