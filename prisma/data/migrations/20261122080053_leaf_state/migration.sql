-- CreateTable
CREATE TABLE "leaf_state" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "hosted_zone_id" TEXT NOT NULL,
    "zone_credential_sealed" TEXT NOT NULL,
    "enrollment_token_hash" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "audience" TEXT NOT NULL,
    "jwks_uri" TEXT NOT NULL,
    "jwks" JSONB,
    "jwks_fetched_at" TIMESTAMPTZ(3),
    "enrolled_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "leaf_state_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "leaf_workspaces" (
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "provisioned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ready_reported_at" TIMESTAMPTZ(3),

    CONSTRAINT "leaf_workspaces_pkey" PRIMARY KEY ("workspace_id")
);
