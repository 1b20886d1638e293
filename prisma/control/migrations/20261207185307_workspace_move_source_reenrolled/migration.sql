-- AlterTable
ALTER TABLE "workspace_moves" ADD COLUMN     "source_reenrolled_at" TIMESTAMPTZ(3);
