-- AlterTable
ALTER TABLE "agent_grants" ADD COLUMN     "application_id" UUID,
ADD COLUMN     "audience" TEXT;

-- CreateTable
CREATE TABLE "oauth_applications" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "owner_id" UUID,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "homepage_url" TEXT,
    "redirect_uris" TEXT[],
    "client_type" TEXT NOT NULL,
    "token_endpoint_auth_method" TEXT NOT NULL,
    "scopes" TEXT[],
    "secret_hash" TEXT,
    "secret_prefix" TEXT,
    "previous_secret_hash" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'active',
    "registered_from" TEXT,
    "last_used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_applications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_authorizations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "application_id" UUID NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "code_challenge" TEXT NOT NULL,
    "state" TEXT,
    "requested_scopes" TEXT[],
    "audience" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "user_id" UUID,
    "scopes" TEXT[],
    "all_workspaces" BOOLEAN NOT NULL DEFAULT true,
    "workspace_ids" UUID[],
    "code_hash" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "grant_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_authorizations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "oauth_applications_owner_id_idx" ON "oauth_applications"("owner_id");

-- CreateIndex
CREATE INDEX "oauth_applications_registered_from_created_at_idx" ON "oauth_applications"("registered_from", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_authorizations_code_hash_key" ON "oauth_authorizations"("code_hash");

-- CreateIndex
CREATE INDEX "oauth_authorizations_expires_at_idx" ON "oauth_authorizations"("expires_at");

-- CreateIndex
CREATE INDEX "agent_grants_application_id_idx" ON "agent_grants"("application_id");
