-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "control";

-- CreateTable
CREATE TABLE "installation" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "platform_version" TEXT NOT NULL,

    CONSTRAINT "installation_pkey" PRIMARY KEY ("id")
);
