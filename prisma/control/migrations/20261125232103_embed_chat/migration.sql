-- CreateTable
CREATE TABLE "embed_conversations" (
    "id" UUID NOT NULL,
    "config_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embed_conversations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "embed_messages" (
    "id" UUID NOT NULL,
    "conversation_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "message" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embed_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "embed_held_turns" (
    "token_hash" TEXT NOT NULL,
    "config_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "state" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embed_held_turns_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "embed_conversations_config_id_user_id_updated_at_idx" ON "embed_conversations"("config_id", "user_id", "updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "embed_messages_conversation_id_seq_key" ON "embed_messages"("conversation_id", "seq");

-- CreateIndex
CREATE INDEX "embed_held_turns_expires_at_idx" ON "embed_held_turns"("expires_at");

-- AddForeignKey
ALTER TABLE "embed_conversations" ADD CONSTRAINT "embed_conversations_config_id_fkey" FOREIGN KEY ("config_id") REFERENCES "embed_configs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "embed_messages" ADD CONSTRAINT "embed_messages_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "embed_conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
