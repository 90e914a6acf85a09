CREATE TABLE "service_settings" (
	"name" varchar(64) PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- The raw webhook payload as received (decisions.md §7): json keeps \u0000 escapes, jsonb refuses them.
ALTER TABLE "pull_requests" ALTER COLUMN "body_blob" SET DATA TYPE json USING "body_blob"::json;