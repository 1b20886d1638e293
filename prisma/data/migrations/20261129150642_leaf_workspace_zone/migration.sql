-- AlterTable
ALTER TABLE "leaf_state" ADD COLUMN     "refused_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "leaf_workspaces" ADD COLUMN     "hosted_zone_id" TEXT;

-- The workspaces provisioned so far were placed by the zone this Leaf is enrolled with.
UPDATE "leaf_workspaces" SET "hosted_zone_id" = (SELECT "hosted_zone_id" FROM "leaf_state" WHERE "id" = 1);
