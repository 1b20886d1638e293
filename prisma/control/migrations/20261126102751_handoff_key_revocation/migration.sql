-- AlterTable
ALTER TABLE "handoff_signing_keys" ADD COLUMN     "revoked_at" TIMESTAMPTZ(3);
