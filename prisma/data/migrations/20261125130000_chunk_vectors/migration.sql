-- Semantic search on pgvector reads every chunk of the searched workspaces, and casting each
-- stored float4[] embedding to the vector type per query was about two thirds of that time on
-- the embedded database (docs/search.md, "Relevance"). So where pgvector is installed or can be
-- installed, fragment_chunks also stores the embedding as a vector, computed by the database
-- when the chunk is written, and the read contract view search_read.fragment_chunks gains it.
-- Where pgvector cannot be had (a Postgres without it, a role that may not create extensions,
-- any other refusal) nothing changes: search casts per query, or uses Qdrant or the memory
-- index, as before. The search component asks the view whether the column exists.
--
-- An embedding the vector type cannot hold (empty, NaN or infinite values, more than 16000
-- dimensions) is NULL there and matches nothing, as before. The two copies of an embedding do
-- not fit one row inline (2 kB): storage MAIN keeps the vector in the row and lets the float4[]
-- copy move out of line, so the scan reads no TOAST (59 ms per query with the vector toasted,
-- 22 ms inline, on 9,227 chunks).
--
-- No semicolons or apostrophes in these comments: the Prisma CLI splits a migration at every
-- semicolon, and the body below writes each one as \073.
DO E'
DECLARE
  ext text\073
BEGIN
  SELECT n.nspname INTO ext FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = ''vector''\073
  IF ext IS NULL AND EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = ''vector'') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS vector\073
    EXCEPTION WHEN OTHERS THEN
      RETURN\073
    END\073
    SELECT n.nspname INTO ext FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = ''vector''\073
  END IF\073
  IF ext IS NULL THEN
    RETURN\073
  END IF\073
  EXECUTE format($f$CREATE FUNCTION data.fragment_chunk_vector(embedding real[]) RETURNS %1$I.vector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $b$SELECT CASE WHEN cardinality(embedding) BETWEEN 1 AND 16000
                   AND NOT embedding && ARRAY[$n$NaN$n$, $n$Infinity$n$, $n$-Infinity$n$]::real[]
                  THEN embedding::%1$I.vector END$b$$f$, ext)\073
  EXECUTE format($f$ALTER TABLE data.fragment_chunks
    ADD COLUMN embedding_vector %I.vector GENERATED ALWAYS AS (data.fragment_chunk_vector(embedding)) STORED,
    ALTER COLUMN embedding_vector SET STORAGE MAIN$f$, ext)\073
  EXECUTE ''CREATE OR REPLACE VIEW search_read.fragment_chunks AS SELECT fragment_id, workspace_id, ordinal, embedding, version, created_at, embedding_vector FROM data.fragment_chunks''\073
END
';
