-- CreateTable
CREATE TABLE "agent_grant_revocations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "issuer" TEXT NOT NULL,
    "user_id" UUID,
    "subject" TEXT,
    "issued_before" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_grant_revocations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "agent_grant_revocations_issuer_user_id_idx" ON "agent_grant_revocations"("issuer", "user_id");

-- CreateIndex
CREATE INDEX "agent_grant_revocations_issuer_subject_idx" ON "agent_grant_revocations"("issuer", "subject");

-- CreateIndex
CREATE INDEX "agent_grant_revocations_created_at_idx" ON "agent_grant_revocations"("created_at");
