-- CreateTable
CREATE TABLE "files" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "mime_type" TEXT NOT NULL DEFAULT 'application/octet-stream',
    "declared_mime_type" TEXT NOT NULL DEFAULT '',
    "kind" TEXT NOT NULL DEFAULT 'other',
    "size_bytes" BIGINT NOT NULL DEFAULT 0,
    "sha256" TEXT NOT NULL DEFAULT '',
    "storage_key" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'uploading',
    "failure_reason" TEXT,
    "failure_message" TEXT,
    "pages_done" INTEGER NOT NULL DEFAULT 0,
    "pages_total" INTEGER NOT NULL DEFAULT 0,
    "chunk_count" INTEGER NOT NULL DEFAULT 0,
    "text_truncated" BOOLEAN NOT NULL DEFAULT false,
    "lease_until" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "file_chunks" (
    "file_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "embedding" REAL[],

    CONSTRAINT "file_chunks_pkey" PRIMARY KEY ("file_id","ordinal")
);

-- CreateTable
CREATE TABLE "file_attachments" (
    "file_id" UUID NOT NULL,
    "fragment_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "file_attachments_pkey" PRIMARY KEY ("file_id","fragment_id")
);

-- CreateIndex
CREATE INDEX "files_workspace_id_created_at_idx" ON "files"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "files_status_lease_until_idx" ON "files"("status", "lease_until");

-- CreateIndex
CREATE UNIQUE INDEX "files_storage_key_key" ON "files"("storage_key");

-- CreateIndex
CREATE INDEX "file_chunks_workspace_id_idx" ON "file_chunks"("workspace_id");

-- CreateIndex
CREATE INDEX "file_attachments_fragment_id_idx" ON "file_attachments"("fragment_id");

-- AddForeignKey
ALTER TABLE "file_chunks" ADD CONSTRAINT "file_chunks_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "file_attachments" ADD CONSTRAINT "file_attachments_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text search of extracted file text (GET /api/files/search): the same english
-- configuration as fragments, an expression index the search statement repeats verbatim.
CREATE INDEX "file_chunks_text_fts" ON "file_chunks" USING GIN (to_tsvector('english', "text"));
