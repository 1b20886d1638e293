-- The structured listing (search component, POST /api/fragments/list) filters with `tags has`,
-- which compares case-insensitively. Written over the tags array it tested every fragment of the
-- workspace (a sequential scan: about 50 ms at 10k fragments, ten times that at 100k). The tags
-- lower-cased are now a stored column with a GIN index, and the read contract shows them, so the
-- filter is an index lookup (docs/search-listing-and-graph.md).
-- (No apostrophes in these comments: the Prisma CLI splits statements on quotes.)

CREATE FUNCTION fragment_tags_folded(tags text[])
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(array_agg(lower(t) ORDER BY n), '{}') FROM unnest(tags) WITH ORDINALITY AS u(t, n)
$$;

ALTER TABLE "fragments"
  ADD COLUMN "tags_folded" text[] GENERATED ALWAYS AS (fragment_tags_folded("tags")) STORED;

CREATE INDEX "fragments_tags_folded_idx" ON "fragments" USING GIN ("tags_folded");

CREATE OR REPLACE VIEW search_read.fragments AS
  SELECT id, workspace_id, fragment_type_id, title, content, summary, tags, key, status, created_via,
         version, created_by, updated_by, created_at, updated_at, archived_at, search_document, search_length,
         tags_folded
    FROM data.fragments;
