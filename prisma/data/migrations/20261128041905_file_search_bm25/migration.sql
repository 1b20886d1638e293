-- Files search ranks the chunks of extracted text by Okapi BM25, as workspace search ranks fragments
-- (docs/files.md, "Search"). ts_rank over the expression index had no word rarity (a common word of a
-- question weighed as much as its rare ones) and recomputed the full-text document of every matching
-- chunk per query: a workspace search, which asks the files search too, paid that on every call.
-- So the chunks get an inverted index beside them: one row per (chunk, word) with the frequency of the
-- word and the length of the chunk. A query reads only the rows of its words.
-- (No apostrophes in these comments: the Prisma CLI splits statements on quotes.)

-- The length of a text in BM25 tokens: every position of its english full-text document.
CREATE FUNCTION file_chunk_search_length(body text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(sum(cardinality(u.positions)), 0)::integer FROM unnest(to_tsvector('english', body)) AS u
$$;

ALTER TABLE "file_chunks"
  ADD COLUMN "search_length" integer GENERATED ALWAYS AS (file_chunk_search_length("text")) STORED;

CREATE TABLE "file_chunk_terms" (
    "workspace_id" UUID NOT NULL,
    "lexeme" TEXT NOT NULL,
    "file_id" UUID NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "tf" REAL NOT NULL,
    "length" INTEGER NOT NULL,

    CONSTRAINT "file_chunk_terms_pkey" PRIMARY KEY ("workspace_id","lexeme","file_id","ordinal")
);

CREATE INDEX "file_chunk_terms_file_id_ordinal_idx" ON "file_chunk_terms"("file_id", "ordinal");

ALTER TABLE "file_chunk_terms" ADD CONSTRAINT "file_chunk_terms_file_id_ordinal_fkey" FOREIGN KEY ("file_id", "ordinal") REFERENCES "file_chunks"("file_id", "ordinal") ON DELETE CASCADE ON UPDATE CASCADE;

-- The rows of one chunk: each word of its english full-text document with how often it occurs.
CREATE FUNCTION file_chunk_terms_of(file uuid, chunk integer, workspace uuid, body text, body_length integer)
RETURNS TABLE (workspace_id uuid, lexeme text, file_id uuid, ordinal integer, tf real, length integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT workspace, u.lexeme, file, chunk, greatest(cardinality(u.positions), 1)::real, body_length
    FROM unnest(to_tsvector('english', body)) AS u
$$;

-- Written in the transaction that inserts the chunk, and removed with it (the foreign key cascades).
-- Chunks are never updated: processing a file again deletes its chunks and inserts new ones.
-- The body is an E-string with \073 for each semicolon: the Prisma CLI splits a migration at every
-- semicolon, even inside a function body.
CREATE FUNCTION file_chunk_terms_insert() RETURNS trigger
LANGUAGE plpgsql
AS E'
BEGIN
  INSERT INTO data.file_chunk_terms (workspace_id, lexeme, file_id, ordinal, tf, length)
    SELECT * FROM data.file_chunk_terms_of(NEW.file_id, NEW.ordinal, NEW.workspace_id, NEW.text, NEW.search_length)\073
  RETURN NULL\073
END
';

CREATE TRIGGER file_chunk_terms_insert AFTER INSERT ON "file_chunks"
  FOR EACH ROW EXECUTE FUNCTION file_chunk_terms_insert();

INSERT INTO "file_chunk_terms" ("workspace_id", "lexeme", "file_id", "ordinal", "tf", "length")
  SELECT t.* FROM "file_chunks" c, file_chunk_terms_of(c.file_id, c.ordinal, c.workspace_id, c.text, c.search_length) t;

-- The search no longer matches through the expression index (it reads the inverted index): one
-- full-text document fewer to compute per chunk written.
DROP INDEX "file_chunks_text_fts";
