-- CreateTable
CREATE TABLE "saved_searches" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "mode" TEXT NOT NULL DEFAULT 'hybrid',
    "types" TEXT[],
    "tags" TEXT[],
    "collection_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "saved_searches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "search_queries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "query" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "result_count" INTEGER NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_queries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "saved_searches_workspace_id_user_id_created_at_idx" ON "saved_searches"("workspace_id", "user_id", "created_at");

-- CreateIndex
CREATE INDEX "search_queries_workspace_id_created_at_idx" ON "search_queries"("workspace_id", "created_at");

-- Hand-written (Prisma cannot express these). The weighted full-text document of a fragment:
-- title (A) > tags (B) > summary (C) > content (D). array_to_string is only STABLE, so the
-- document lives in an IMMUTABLE wrapper (safe: fixed 'english' config, no locale input),
-- which lets a GIN expression index read the fragments table directly: a fragment is findable
-- by keyword as soon as the transaction that created it commits, with no second write.
CREATE FUNCTION fragment_search_document(title text, tags text[], summary text, content text)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
      || setweight(to_tsvector('english'::regconfig, coalesce(array_to_string(tags, ' '), '')), 'B')
      || setweight(to_tsvector('english'::regconfig, coalesce(summary, '')), 'C')
      || setweight(to_tsvector('english'::regconfig, coalesce(content, '')), 'D')
$$;

CREATE INDEX "fragments_search_document_idx" ON "fragments" USING GIN (fragment_search_document("title", "tags", "summary", "content"));
