CREATE TABLE "service_settings" (
	"name" varchar(64) PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- The raw webhook payload as received (decisions.md §7): json keeps \u0000 escapes, jsonb refuses them.
ALTER TABLE "pull_requests" ALTER COLUMN "body_blob" SET DATA TYPE json USING "body_blob"::json;--> statement-breakpoint
-- lz4 instead of pglz for the ~24 KB payloads: the webhook intake's largest cost in PostgreSQL
-- (measured: 1.0-1.4 ms and 5.6 KB of WAL per delivery with pglz, 0.55 ms and 3.0 KB with lz4).
-- PostgreSQL built without lz4 (PGlite) keeps pglz.
DO $$
BEGIN
  ALTER TABLE "pull_requests" ALTER COLUMN "body_blob" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;
