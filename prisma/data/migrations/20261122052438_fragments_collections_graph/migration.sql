-- CreateTable
CREATE TABLE "fragment_types" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fragment_types_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "fragments" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "fragment_type_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "summary" TEXT,
    "summary_source" TEXT,
    "tags" TEXT[],
    "enhance_tags" BOOLEAN NOT NULL DEFAULT false,
    "key" TEXT,
    "status" TEXT NOT NULL DEFAULT 'processing',
    "created_via" TEXT NOT NULL DEFAULT 'api',
    "version" INTEGER NOT NULL DEFAULT 1,
    "enrichment" JSONB NOT NULL DEFAULT '{}',
    "created_by" UUID NOT NULL,
    "updated_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archived_at" TIMESTAMPTZ(3),

    CONSTRAINT "fragments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "fragment_chunks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "fragment_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "embedding" REAL[],
    "version" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fragment_chunks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "collections" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "collections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "collection_fragments" (
    "collection_id" UUID NOT NULL,
    "fragment_id" UUID NOT NULL,
    "added_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "collection_fragments_pkey" PRIMARY KEY ("collection_id","fragment_id")
);

-- CreateTable
CREATE TABLE "graph_entities" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "normalized_name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "graph_entities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "graph_mentions" (
    "entity_id" UUID NOT NULL,
    "fragment_id" UUID NOT NULL,

    CONSTRAINT "graph_mentions_pkey" PRIMARY KEY ("entity_id","fragment_id")
);

-- CreateTable
CREATE TABLE "graph_relations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "target_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "fragment_id" UUID NOT NULL,

    CONSTRAINT "graph_relations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "processed_events" (
    "consumer" TEXT NOT NULL,
    "event_id" UUID NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_events_pkey" PRIMARY KEY ("consumer","event_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "fragment_types_workspace_id_key_key" ON "fragment_types"("workspace_id", "key");

-- CreateIndex
CREATE INDEX "fragments_workspace_id_status_created_at_idx" ON "fragments"("workspace_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "fragments_workspace_id_archived_at_created_at_idx" ON "fragments"("workspace_id", "archived_at", "created_at");

-- CreateIndex
CREATE INDEX "fragments_fragment_type_id_idx" ON "fragments"("fragment_type_id");

-- CreateIndex
CREATE UNIQUE INDEX "fragments_workspace_id_key_key" ON "fragments"("workspace_id", "key");

-- CreateIndex
CREATE INDEX "fragment_chunks_workspace_id_idx" ON "fragment_chunks"("workspace_id");

-- CreateIndex
CREATE UNIQUE INDEX "fragment_chunks_fragment_id_ordinal_key" ON "fragment_chunks"("fragment_id", "ordinal");

-- CreateIndex
CREATE INDEX "collections_workspace_id_idx" ON "collections"("workspace_id");

-- CreateIndex
CREATE INDEX "collection_fragments_fragment_id_idx" ON "collection_fragments"("fragment_id");

-- CreateIndex
CREATE UNIQUE INDEX "graph_entities_workspace_id_kind_normalized_name_key" ON "graph_entities"("workspace_id", "kind", "normalized_name");

-- CreateIndex
CREATE INDEX "graph_mentions_fragment_id_idx" ON "graph_mentions"("fragment_id");

-- CreateIndex
CREATE INDEX "graph_relations_workspace_id_idx" ON "graph_relations"("workspace_id");

-- CreateIndex
CREATE INDEX "graph_relations_fragment_id_idx" ON "graph_relations"("fragment_id");

-- CreateIndex
CREATE UNIQUE INDEX "graph_relations_source_id_target_id_kind_fragment_id_key" ON "graph_relations"("source_id", "target_id", "kind", "fragment_id");

-- AddForeignKey
ALTER TABLE "fragments" ADD CONSTRAINT "fragments_fragment_type_id_fkey" FOREIGN KEY ("fragment_type_id") REFERENCES "fragment_types"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "fragment_chunks" ADD CONSTRAINT "fragment_chunks_fragment_id_fkey" FOREIGN KEY ("fragment_id") REFERENCES "fragments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "collection_fragments" ADD CONSTRAINT "collection_fragments_collection_id_fkey" FOREIGN KEY ("collection_id") REFERENCES "collections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "collection_fragments" ADD CONSTRAINT "collection_fragments_fragment_id_fkey" FOREIGN KEY ("fragment_id") REFERENCES "fragments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "graph_mentions" ADD CONSTRAINT "graph_mentions_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "graph_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "graph_mentions" ADD CONSTRAINT "graph_mentions_fragment_id_fkey" FOREIGN KEY ("fragment_id") REFERENCES "fragments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "graph_relations" ADD CONSTRAINT "graph_relations_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "graph_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "graph_relations" ADD CONSTRAINT "graph_relations_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "graph_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE;
