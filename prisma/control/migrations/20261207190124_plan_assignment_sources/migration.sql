-- An account's plan, one row per source: an administrator's grant and a paying subscription's
-- plan are kept apart, so a subscription that ends gives the administrator's grant back.
ALTER TABLE "plan_assignments" ADD COLUMN "source" TEXT NOT NULL DEFAULT 'admin';
UPDATE "plan_assignments" SET "source" = 'billing' WHERE "assigned_by" LIKE 'billing:%';
ALTER TABLE "plan_assignments" ALTER COLUMN "source" DROP DEFAULT;
ALTER TABLE "plan_assignments" DROP CONSTRAINT "plan_assignments_pkey",
ADD CONSTRAINT "plan_assignments_pkey" PRIMARY KEY ("user_id", "source");
