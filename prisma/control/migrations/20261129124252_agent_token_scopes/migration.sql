-- AlterTable
ALTER TABLE "agent_tokens" ADD COLUMN     "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[];
