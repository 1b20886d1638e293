-- CreateTable
CREATE TABLE "handoff_revocations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "hosted_zone_id" UUID NOT NULL,
    "user_id" UUID,
    "workspace_id" UUID,
    "credential_id" TEXT,
    "revoked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "handoff_revocations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "handoff_issuances" (
    "hosted_zone_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "credential_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "handoff_issuances_pkey" PRIMARY KEY ("hosted_zone_id","user_id","credential_id")
);

-- CreateIndex
CREATE INDEX "handoff_revocations_hosted_zone_id_revoked_at_idx" ON "handoff_revocations"("hosted_zone_id", "revoked_at");

-- CreateIndex
CREATE INDEX "handoff_revocations_revoked_at_idx" ON "handoff_revocations"("revoked_at");

-- CreateIndex
CREATE INDEX "handoff_issuances_user_id_idx" ON "handoff_issuances"("user_id");

-- CreateIndex
CREATE INDEX "handoff_issuances_credential_id_idx" ON "handoff_issuances"("credential_id");

-- CreateIndex
CREATE INDEX "handoff_issuances_expires_at_idx" ON "handoff_issuances"("expires_at");
