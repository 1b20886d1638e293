-- Keyword ranking is Okapi BM25 (docs/search.md, "Relevance"): it needs, per word of a query,
-- how many live fragments of a workspace hold it (document frequency) and how often each of
-- them does (term frequency), and the length of each fragment. Reading that out of the full-text
-- document of every candidate per query costs about 20x the plain full-text query, so fragments
-- keeps an inverted index beside the table: one row per (fragment, word) with the weighted
-- frequency of the word and the length of the fragment. A query reads only the rows of its words.
-- (No apostrophes in these comments: the Prisma CLI splits statements on quotes.)

-- The length of a document in BM25 tokens: every position of the title, tags and content counts 1,
-- those of the summary (weight C) 0: the summary restates the content (extractively with the built-in
-- provider), so its words would lengthen a summarised fragment twice.
CREATE FUNCTION fragment_search_length(document tsvector)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT count(*)::integer FROM unnest(document) AS u, unnest(u.weights) AS w WHERE w <> 'C'
$$;

-- The stored weighted full-text document (title A, tags B, summary C, content D) and its length:
-- the trigger below, precise (web-search syntax) matching and the corpus statistics read them
-- instead of recomputing them.
ALTER TABLE "fragments"
  ADD COLUMN "search_document" tsvector
    GENERATED ALWAYS AS (fragment_search_document("title", "tags", "summary", "content")) STORED,
  ADD COLUMN "search_length" integer
    GENERATED ALWAYS AS (fragment_search_length(fragment_search_document("title", "tags", "summary", "content"))) STORED;

DROP INDEX "fragments_search_document_idx";
CREATE INDEX "fragments_search_document_idx" ON "fragments" USING GIN ("search_document");

-- The inverted index of the live (not archived) fragments, kept by the trigger below in the
-- transaction that writes the fragment: a fragment is findable and correctly weighed as soon as
-- that transaction commits.
CREATE TABLE "fragment_terms" (
    "workspace_id" UUID NOT NULL,
    "lexeme" TEXT NOT NULL,
    "fragment_id" UUID NOT NULL,
    "tf" REAL NOT NULL,
    "length" INTEGER NOT NULL,

    CONSTRAINT "fragment_terms_pkey" PRIMARY KEY ("workspace_id","lexeme","fragment_id")
);

CREATE INDEX "fragment_terms_fragment_id_idx" ON "fragment_terms"("fragment_id");

ALTER TABLE "fragment_terms" ADD CONSTRAINT "fragment_terms_fragment_id_fkey" FOREIGN KEY ("fragment_id") REFERENCES "fragments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The rows of one fragment in the inverted index. Term frequency weighs each occurrence by its field:
-- title 3, tags 2, summary 0.25, content 1, so a word in the title outweighs the same word in
-- the tags, summary and content (the order docs/search.md promises), and the summary counts little
-- for the reason above. Measured on NFCorpus in docs/search.md: as good as unweighted fields,
-- with the field order kept.
CREATE FUNCTION fragment_terms_of(fragment uuid, workspace uuid, document tsvector, document_length integer)
RETURNS TABLE (workspace_id uuid, lexeme text, fragment_id uuid, tf real, length integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT workspace, u.lexeme, fragment,
         coalesce((SELECT sum(CASE w WHEN 'A' THEN 3 WHEN 'B' THEN 2 WHEN 'C' THEN 0.25 ELSE 1 END)
                     FROM unnest(u.weights) AS w), 1)::real,
         document_length
    FROM unnest(document) AS u
$$;

-- Keeps the rows of a fragment current: written again when its document changes, removed when
-- it is archived. The body is an E-string with \073 for each semicolon because the Prisma CLI
-- (prisma migrate deploy through the pg driver adapter) splits a migration at every semicolon,
-- even inside a function body or a comment.
CREATE FUNCTION fragment_terms_refresh() RETURNS trigger
LANGUAGE plpgsql
AS E'
BEGIN
  IF TG_OP = ''UPDATE'' THEN
    IF NEW.search_document IS NOT DISTINCT FROM OLD.search_document
       AND NEW.archived_at IS NOT DISTINCT FROM OLD.archived_at
       AND NEW.workspace_id = OLD.workspace_id THEN
      RETURN NULL\073
    END IF\073
    DELETE FROM data.fragment_terms WHERE fragment_id = OLD.id\073
  END IF\073
  IF NEW.archived_at IS NULL THEN
    INSERT INTO data.fragment_terms (workspace_id, lexeme, fragment_id, tf, length)
      SELECT * FROM data.fragment_terms_of(NEW.id, NEW.workspace_id, NEW.search_document, NEW.search_length)\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER fragment_terms_refresh AFTER INSERT OR UPDATE ON "fragments"
  FOR EACH ROW EXECUTE FUNCTION fragment_terms_refresh();

INSERT INTO "fragment_terms" ("workspace_id", "lexeme", "fragment_id", "tf", "length")
  SELECT t.* FROM "fragments" f, fragment_terms_of(f.id, f.workspace_id, f.search_document, f.search_length) t
   WHERE f.archived_at IS NULL;

-- The read contract gains the stored document and the inverted index (docs/search-listing-and-graph.md).
CREATE OR REPLACE VIEW search_read.fragments AS
  SELECT id, workspace_id, fragment_type_id, title, content, summary, tags, key, status, created_via,
         version, created_by, updated_by, created_at, updated_at, archived_at, search_document, search_length
    FROM data.fragments;

CREATE OR REPLACE VIEW search_read.fragment_terms AS
  SELECT workspace_id, lexeme, fragment_id, tf, length FROM data.fragment_terms;
