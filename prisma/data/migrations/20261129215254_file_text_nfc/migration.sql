-- Files search reads the extracted text of files in Unicode NFC (composed), as search reads its
-- queries (docs/files.md, "Search"): processing now stores the text in NFC, and this brings the
-- chunks stored before to the same form, so a word a file held decomposed (NFD: e then a combining
-- accent, as macOS and some editors save text) is found by a query typed composed, and the reverse.
-- Chunks already in NFC, nearly all of them, are left alone.
-- (No apostrophes in these comments: the Prisma CLI splits statements on quotes.)

-- Unicode normalisation needs a UTF8 database (the embedded ones are), else nothing is rewritten.
-- The inverted index of a chunk is written by a trigger on insert only (chunks are never updated), so
-- the rows of each chunk rewritten here are replaced by those of its NFC text first, then the text
-- itself is rewritten (which computes its search_length again).
DELETE FROM "file_chunk_terms" t
 USING "file_chunks" c
 WHERE t."file_id" = c."file_id" AND t."ordinal" = c."ordinal"
   AND CASE WHEN getdatabaseencoding() = 'UTF8' THEN c."text" IS NOT NFC NORMALIZED ELSE FALSE END;

INSERT INTO "file_chunk_terms" ("workspace_id", "lexeme", "file_id", "ordinal", "tf", "length")
  SELECT t.*
    FROM "file_chunks" c,
         file_chunk_terms_of(c."file_id", c."ordinal", c."workspace_id", normalize(c."text", NFC),
                             file_chunk_search_length(normalize(c."text", NFC))) t
   WHERE CASE WHEN getdatabaseencoding() = 'UTF8' THEN c."text" IS NOT NFC NORMALIZED ELSE FALSE END;

UPDATE "file_chunks" SET "text" = normalize("text", NFC)
 WHERE CASE WHEN getdatabaseencoding() = 'UTF8' THEN "text" IS NOT NFC NORMALIZED ELSE FALSE END;
