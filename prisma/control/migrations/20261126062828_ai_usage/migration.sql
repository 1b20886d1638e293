-- AlterTable
ALTER TABLE "model_usage" ADD COLUMN     "embeddings" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "searches" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "workspace_id" UUID;

-- CreateIndex
CREATE INDEX "model_usage_workspace_id_at_idx" ON "model_usage"("workspace_id", "at");

-- CreateIndex
CREATE INDEX "model_usage_at_idx" ON "model_usage"("at");
