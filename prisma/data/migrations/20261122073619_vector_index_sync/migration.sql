-- CreateTable
CREATE TABLE "vector_index_sync" (
    "fragment_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "embedded_at" TIMESTAMPTZ(3) NOT NULL,
    "synced_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vector_index_sync_pkey" PRIMARY KEY ("fragment_id")
);
