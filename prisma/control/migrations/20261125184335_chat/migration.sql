-- CreateTable
CREATE TABLE "vault_secrets" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "provider" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "ciphertext" TEXT NOT NULL,
    "wrapped_key" TEXT NOT NULL,
    "key_version" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vault_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vault_accesses" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "secret_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "secret_name" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '',
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vault_accesses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "model_usage" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "token_id" TEXT NOT NULL DEFAULT '',
    "credential" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "images" INTEGER NOT NULL DEFAULT 0,
    "latency_ms" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "model_usage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "web_search_grants" (
    "user_id" UUID NOT NULL,
    "granted_by" UUID NOT NULL,
    "granted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "web_search_grants_pkey" PRIMARY KEY ("user_id")
);

-- CreateIndex
CREATE INDEX "vault_secrets_user_id_type_provider_idx" ON "vault_secrets"("user_id", "type", "provider");

-- CreateIndex
CREATE INDEX "vault_secrets_key_version_idx" ON "vault_secrets"("key_version");

-- CreateIndex
CREATE UNIQUE INDEX "vault_secrets_user_id_name_key" ON "vault_secrets"("user_id", "name");

-- CreateIndex
CREATE INDEX "vault_accesses_user_id_at_idx" ON "vault_accesses"("user_id", "at" DESC);

-- CreateIndex
CREATE INDEX "model_usage_user_id_at_idx" ON "model_usage"("user_id", "at" DESC);
