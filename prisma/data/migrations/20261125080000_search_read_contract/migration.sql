-- The read contract of the fragments component with search (docs/search-listing-and-graph.md,
-- "The read contract with fragments"). Owned by fragments: the tables may change freely as long
-- as these views keep their columns and types (test/contracts/search-read-contract.spec.ts).
-- Search reads only these views, never the tables. Simple views: Postgres inlines them, so the
-- tables' indexes (fragments_search_document_idx, ...) serve the queries as before.
CREATE SCHEMA IF NOT EXISTS search_read;

CREATE OR REPLACE VIEW search_read.fragments AS
  SELECT id, workspace_id, fragment_type_id, title, content, summary, tags, key, status, created_via,
         version, created_by, updated_by, created_at, updated_at, archived_at
    FROM data.fragments;

CREATE OR REPLACE VIEW search_read.fragment_types AS
  SELECT id, workspace_id, key FROM data.fragment_types;

CREATE OR REPLACE VIEW search_read.collections AS
  SELECT id, workspace_id FROM data.collections;

CREATE OR REPLACE VIEW search_read.collection_fragments AS
  SELECT collection_id, fragment_id FROM data.collection_fragments;

CREATE OR REPLACE VIEW search_read.fragment_chunks AS
  SELECT fragment_id, workspace_id, ordinal, embedding, version, created_at FROM data.fragment_chunks;

CREATE OR REPLACE VIEW search_read.graph_entities AS
  SELECT id, workspace_id, kind, name, normalized_name FROM data.graph_entities;

CREATE OR REPLACE VIEW search_read.graph_mentions AS
  SELECT entity_id, fragment_id FROM data.graph_mentions;

CREATE OR REPLACE VIEW search_read.graph_relations AS
  SELECT workspace_id, source_id, target_id, kind, fragment_id FROM data.graph_relations;
