-- CreateTable
CREATE TABLE "trusted_issuers" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "issuer" TEXT NOT NULL,
    "jwks_uri" TEXT,
    "jwks" JSONB,
    "algorithms" TEXT[],
    "allowed_client_ids" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trusted_issuers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "seen_jwt_ids" (
    "issuer" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "jti" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "seen_jwt_ids_pkey" PRIMARY KEY ("issuer","kind","jti")
);

-- CreateTable
CREATE TABLE "agent_grants" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "method" TEXT NOT NULL,
    "agent_name" TEXT NOT NULL,
    "issuer" TEXT,
    "subject" TEXT,
    "scopes" TEXT[],
    "all_workspaces" BOOLEAN NOT NULL DEFAULT true,
    "workspace_ids" UUID[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_reason" TEXT,

    CONSTRAINT "agent_grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_tokens" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "grant_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_claims" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "claim_token_hash" TEXT NOT NULL,
    "login_hint" TEXT NOT NULL,
    "agent_name" TEXT NOT NULL,
    "requested_scopes" TEXT[],
    "status" TEXT NOT NULL DEFAULT 'pending',
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "window_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "user_code_hash" TEXT,
    "interval_seconds" INTEGER NOT NULL,
    "last_polled_at" TIMESTAMPTZ(3),
    "user_id" UUID,
    "scopes" TEXT[],
    "all_workspaces" BOOLEAN NOT NULL DEFAULT true,
    "workspace_ids" UUID[],
    "terms_accepted_at" TIMESTAMPTZ(3),
    "decided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_claims_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "trusted_issuers_issuer_key" ON "trusted_issuers"("issuer");

-- CreateIndex
CREATE INDEX "seen_jwt_ids_expires_at_idx" ON "seen_jwt_ids"("expires_at");

-- CreateIndex
CREATE INDEX "agent_grants_user_id_idx" ON "agent_grants"("user_id");

-- CreateIndex
CREATE INDEX "agent_grants_issuer_subject_idx" ON "agent_grants"("issuer", "subject");

-- CreateIndex
CREATE UNIQUE INDEX "agent_tokens_token_hash_key" ON "agent_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "agent_tokens_grant_id_idx" ON "agent_tokens"("grant_id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_claims_claim_token_hash_key" ON "agent_claims"("claim_token_hash");

-- CreateIndex
CREATE INDEX "agent_claims_expires_at_idx" ON "agent_claims"("expires_at");

-- AddForeignKey
ALTER TABLE "agent_grants" ADD CONSTRAINT "agent_grants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_tokens" ADD CONSTRAINT "agent_tokens_grant_id_fkey" FOREIGN KEY ("grant_id") REFERENCES "agent_grants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
