-- AlterTable
ALTER TABLE "leaf_workspaces" ADD COLUMN     "frozen_at" TIMESTAMPTZ(3);
