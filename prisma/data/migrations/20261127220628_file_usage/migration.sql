-- CreateTable
CREATE TABLE "file_usage" (
    "workspace_id" UUID NOT NULL,
    "used_bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "file_usage_pkey" PRIMARY KEY ("workspace_id")
);

-- Keeps file_usage equal to the sum of size_bytes of each workspace's files, in the transaction that
-- writes a file (completing an upload, deleting, importing, moving or a cascade from elsewhere).
-- The body is an E-string with \073 for each semicolon because the Prisma CLI splits a migration at
-- every semicolon, even inside a function body. (No apostrophes in these comments either.)
CREATE FUNCTION file_usage_refresh() RETURNS trigger
LANGUAGE plpgsql
AS E'
BEGIN
  IF TG_OP = ''UPDATE'' AND NEW.size_bytes = OLD.size_bytes AND NEW.workspace_id = OLD.workspace_id THEN
    RETURN NULL\073
  END IF\073
  IF TG_OP IN (''UPDATE'', ''DELETE'') AND OLD.size_bytes <> 0 THEN
    UPDATE data.file_usage SET used_bytes = used_bytes - OLD.size_bytes WHERE workspace_id = OLD.workspace_id\073
  END IF\073
  IF TG_OP IN (''INSERT'', ''UPDATE'') AND NEW.size_bytes <> 0 THEN
    INSERT INTO data.file_usage AS u (workspace_id, used_bytes) VALUES (NEW.workspace_id, NEW.size_bytes)
      ON CONFLICT (workspace_id) DO UPDATE SET used_bytes = u.used_bytes + EXCLUDED.used_bytes\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER file_usage_refresh AFTER INSERT OR DELETE OR UPDATE OF size_bytes, workspace_id ON "files"
  FOR EACH ROW EXECUTE FUNCTION file_usage_refresh();

INSERT INTO "file_usage" ("workspace_id", "used_bytes")
  SELECT "workspace_id", sum("size_bytes") FROM "files" GROUP BY "workspace_id" HAVING sum("size_bytes") <> 0;
