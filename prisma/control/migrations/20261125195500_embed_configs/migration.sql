-- CreateTable
CREATE TABLE "embed_configs" (
    "id" UUID NOT NULL,
    "created_by" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "model" TEXT NOT NULL DEFAULT '',
    "model_locked" BOOLEAN NOT NULL DEFAULT false,
    "features" JSONB NOT NULL DEFAULT '{}',
    "main_expert_id" UUID,
    "stateless" BOOLEAN NOT NULL DEFAULT false,
    "system_prompt" TEXT NOT NULL DEFAULT '',
    "default_context" JSONB NOT NULL DEFAULT '[]',
    "trusted_issuer" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archived_at" TIMESTAMPTZ(3),

    CONSTRAINT "embed_configs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "embed_keys" (
    "id" UUID NOT NULL,
    "config_id" UUID NOT NULL,
    "label" TEXT NOT NULL,
    "allowed_origins" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "public" BOOLEAN NOT NULL DEFAULT false,
    "expires_at" TIMESTAMPTZ(3),
    "token_hash" TEXT NOT NULL,
    "token_prefix" TEXT NOT NULL,
    "scoped_token_sealed" TEXT,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embed_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "embed_configs_created_by_status_created_at_idx" ON "embed_configs"("created_by", "status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "embed_keys_token_hash_key" ON "embed_keys"("token_hash");

-- CreateIndex
CREATE INDEX "embed_keys_config_id_created_at_idx" ON "embed_keys"("config_id", "created_at");

-- AddForeignKey
ALTER TABLE "embed_keys" ADD CONSTRAINT "embed_keys_config_id_fkey" FOREIGN KEY ("config_id") REFERENCES "embed_configs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
