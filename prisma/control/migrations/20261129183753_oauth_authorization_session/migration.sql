-- AlterTable
ALTER TABLE "oauth_authorizations" ADD COLUMN     "session_id" UUID;
