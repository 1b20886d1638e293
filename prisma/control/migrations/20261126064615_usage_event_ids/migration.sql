-- AlterTable
ALTER TABLE "model_usage" ADD COLUMN     "event_id" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "model_usage_event_id_key" ON "model_usage"("event_id");
