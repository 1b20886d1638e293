-- CreateTable
CREATE TABLE "hosted_zones" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "endpoint_url" TEXT,
    "owner_id" UUID NOT NULL,
    "enrollment_token_hash" TEXT,
    "enrollment_token_expires_at" TIMESTAMPTZ(3),
    "credential_hash" TEXT,
    "enrolled_at" TIMESTAMPTZ(3),
    "last_heartbeat_at" TIMESTAMPTZ(3),
    "leaf_version" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hosted_zones_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "handoff_signing_keys" (
    "kid" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "private_jwk_sealed" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "handoff_signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE UNIQUE INDEX "hosted_zones_enrollment_token_hash_key" ON "hosted_zones"("enrollment_token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "hosted_zones_credential_hash_key" ON "hosted_zones"("credential_hash");

-- CreateIndex
CREATE INDEX "hosted_zones_owner_id_idx" ON "hosted_zones"("owner_id");

-- CreateIndex
CREATE INDEX "handoff_signing_keys_created_at_idx" ON "handoff_signing_keys"("created_at");

-- CreateIndex
CREATE INDEX "workspaces_hosted_zone_id_status_idx" ON "workspaces"("hosted_zone_id", "status");

-- AddForeignKey
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_hosted_zone_id_fkey" FOREIGN KEY ("hosted_zone_id") REFERENCES "hosted_zones"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
