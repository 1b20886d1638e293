-- AlterTable
ALTER TABLE "leaf_state" ADD COLUMN     "revocations" JSONB,
ADD COLUMN     "revocations_fetched_at" TIMESTAMPTZ(3);
