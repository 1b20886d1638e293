-- CreateTable
CREATE TABLE "plan_assignments" (
    "user_id" UUID NOT NULL,
    "plan_id" TEXT NOT NULL,
    "assigned_by" UUID NOT NULL,
    "assigned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "plan_assignments_pkey" PRIMARY KEY ("user_id")
);
