-- AlterTable
ALTER TABLE "seen_jwt_ids" ADD COLUMN     "applied_at" TIMESTAMPTZ(3);
