-- Keyword search reads a fragment in Unicode NFC (composed), as it reads its queries (docs/search.md,
-- "How a query is read"): the API stores text as it was sent, and a word sent decomposed (NFD: e then
-- a combining accent, as some keyboards and pasted text send it) was another word to the full-text
-- index, found by no query typed composed. Only the derived full-text document is normalised: the
-- stored title, tags, summary and content stay as sent.
-- (No apostrophes in these comments: the Prisma CLI splits statements on quotes.)

-- Unicode normalisation needs a UTF8 database (the embedded ones are), else the text is read as it is.
-- Named with its schema: the generated columns are computed under the search path of whoever writes.
CREATE FUNCTION fragment_search_nfc(t text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN getdatabaseencoding() = 'UTF8' THEN normalize(t, NFC) ELSE t END
$$;

CREATE OR REPLACE FUNCTION fragment_search_document(title text, tags text[], summary text, content text)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT setweight(to_tsvector('english'::regconfig, data.fragment_search_nfc(coalesce(title, ''))), 'A')
      || setweight(to_tsvector('english'::regconfig, data.fragment_search_nfc(coalesce(array_to_string(tags, ' '), ''))), 'B')
      || setweight(to_tsvector('english'::regconfig, data.fragment_search_nfc(coalesce(summary, ''))), 'C')
      || setweight(to_tsvector('english'::regconfig, data.fragment_search_nfc(coalesce(content, ''))), 'D')
$$;

-- The stored documents of fragments whose text is not NFC are computed again (an update recomputes the
-- generated columns, and the trigger of the inverted index follows). The text itself is set to itself.
-- Text already in NFC, nearly all of it, gives the same document as before and is left alone.
UPDATE "fragments" SET "title" = "title"
 WHERE data.fragment_search_nfc("title") <> "title"
    OR data.fragment_search_nfc(coalesce("summary", '')) <> coalesce("summary", '')
    OR data.fragment_search_nfc("content") <> "content"
    OR data.fragment_search_nfc(array_to_string("tags", ' ')) <> array_to_string("tags", ' ');
