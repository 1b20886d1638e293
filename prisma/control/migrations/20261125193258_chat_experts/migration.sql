-- CreateTable
CREATE TABLE "chat_experts" (
    "id" UUID NOT NULL,
    "created_by" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "system_prompt" TEXT NOT NULL DEFAULT '',
    "enabled_tools" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "routing_keywords" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "model_preference" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archived_at" TIMESTAMPTZ(3),

    CONSTRAINT "chat_experts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "chat_experts_created_by_workspace_id_created_at_idx" ON "chat_experts"("created_by", "workspace_id", "created_at");
