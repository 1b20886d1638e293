-- CreateIndex
CREATE INDEX "agent_tokens_expires_at_idx" ON "agent_tokens"("expires_at");
