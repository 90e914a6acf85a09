-- The GitHub App (decisions.md §8): installations, publications and the findings posted inline.
CREATE TABLE "github_installations" (
	"id" bigint PRIMARY KEY NOT NULL,
	"user_id" uuid,
	"sender_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"account_login" varchar(100) NOT NULL,
	"account_type" varchar(32) NOT NULL,
	"repository_selection" varchar(16) NOT NULL,
	"repositories" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"suspended" boolean DEFAULT false NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "github_posted_findings" (
	"pull_request_id" uuid NOT NULL,
	"finding_id" varchar(64) NOT NULL,
	"comment_id" bigint NOT NULL,
	"comment_url" text,
	"commit_sha" varchar(64) NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "github_posted_findings_pull_request_id_finding_id_pk" PRIMARY KEY("pull_request_id","finding_id")
);
--> statement-breakpoint
CREATE TABLE "github_publications" (
	"pull_request_id" uuid PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"state" varchar(16) DEFAULT 'pending' NOT NULL,
	"reason" text,
	"head_sha" varchar(64),
	"check_run_id" bigint,
	"check_run_sha" varchar(64),
	"check_run_url" text,
	"summary_comment_id" bigint,
	"summary_comment_url" text,
	"review_url" text,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "installation_id" bigint;--> statement-breakpoint
ALTER TABLE "github_installations" ADD CONSTRAINT "github_installations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "github_posted_findings" ADD CONSTRAINT "github_posted_findings_pull_request_id_pull_requests_id_fk" FOREIGN KEY ("pull_request_id") REFERENCES "public"."pull_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "github_publications" ADD CONSTRAINT "github_publications_pull_request_id_pull_requests_id_fk" FOREIGN KEY ("pull_request_id") REFERENCES "public"."pull_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "github_installations_user_idx" ON "github_installations" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "github_installations_unclaimed_idx" ON "github_installations" USING btree ("sender_id") WHERE "github_installations"."user_id" is null;--> statement-breakpoint
CREATE INDEX "github_posted_findings_comment_idx" ON "github_posted_findings" USING btree ("comment_id");--> statement-breakpoint
CREATE INDEX "pull_requests_repository_number_idx" ON "pull_requests" USING btree ("repository_name","pr_number");--> statement-breakpoint
-- Repository configuration and findings feedback (decisions.md §10).
CREATE TABLE "finding_verdicts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"pull_request_id" uuid NOT NULL,
	"repository_name" varchar(256) NOT NULL,
	"finding_id" varchar(64) NOT NULL,
	"verdict" varchar(16) NOT NULL,
	"note" text,
	"file" text NOT NULL,
	"title" text NOT NULL,
	"comment" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "repository_learnings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"verdict_id" uuid NOT NULL,
	"repository_name" varchar(256) NOT NULL,
	"note" text NOT NULL,
	"finding_title" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "reviews" ADD COLUMN "requested_mode" varchar(16);--> statement-breakpoint
ALTER TABLE "reviews" ADD COLUMN "repository_config" jsonb;--> statement-breakpoint
ALTER TABLE "reviews" ADD COLUMN "previous_run" jsonb;--> statement-breakpoint
ALTER TABLE "finding_verdicts" ADD CONSTRAINT "finding_verdicts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finding_verdicts" ADD CONSTRAINT "finding_verdicts_pull_request_id_pull_requests_id_fk" FOREIGN KEY ("pull_request_id") REFERENCES "public"."pull_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repository_learnings" ADD CONSTRAINT "repository_learnings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repository_learnings" ADD CONSTRAINT "repository_learnings_verdict_id_finding_verdicts_id_fk" FOREIGN KEY ("verdict_id") REFERENCES "public"."finding_verdicts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "finding_verdicts_pr_finding_key" ON "finding_verdicts" USING btree ("pull_request_id","finding_id");--> statement-breakpoint
CREATE INDEX "finding_verdicts_user_repository_idx" ON "finding_verdicts" USING btree ("user_id","repository_name");--> statement-breakpoint
CREATE UNIQUE INDEX "repository_learnings_verdict_key" ON "repository_learnings" USING btree ("verdict_id");--> statement-breakpoint
CREATE INDEX "repository_learnings_user_repository_idx" ON "repository_learnings" USING btree ("user_id","repository_name","created_at" DESC NULLS LAST);--> statement-breakpoint
-- Input hygiene (decisions.md §7) and the encryption key's fingerprint.
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
--> statement-breakpoint
-- Trigram search of titles; btree_gin puts the user id in the same GIN index as the trigrams.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
DROP INDEX "pull_requests_user_updated_idx";--> statement-breakpoint
DROP INDEX "pull_requests_user_status_updated_idx";--> statement-breakpoint
DROP INDEX "reviews_user_started_idx";--> statement-breakpoint
DROP INDEX "ai_conversations_user_updated_idx";--> statement-breakpoint
CREATE INDEX "pull_requests_user_repository_updated_idx" ON "pull_requests" USING btree ("user_id","repository_name","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "pull_requests_user_title_trgm_idx" ON "pull_requests" USING gin ("user_id","title" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "pull_requests_user_updated_idx" ON "pull_requests" USING btree ("user_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "pull_requests_user_status_updated_idx" ON "pull_requests" USING btree ("user_id","review_status","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "reviews_user_started_idx" ON "reviews" USING btree ("user_id","started_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "ai_conversations_user_updated_idx" ON "ai_conversations" USING btree ("user_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);