CREATE TABLE "diff_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"org_id" uuid,
	"status" varchar(16) DEFAULT 'queued' NOT NULL,
	"title" text,
	"repository_name" varchar(256),
	"mode" varchar(16) NOT NULL,
	"diff" text NOT NULL,
	"files" jsonb NOT NULL,
	"repository_config" jsonb,
	"progress_done" integer DEFAULT 0 NOT NULL,
	"progress_total" integer,
	"error" text,
	"review_summary" text,
	"review_raw_json" jsonb,
	"coverage" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "finding_verdicts" ALTER COLUMN "pull_request_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "finding_verdicts" ALTER COLUMN "repository_name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "finding_verdicts" ADD COLUMN "diff_review_id" uuid;--> statement-breakpoint
ALTER TABLE "diff_reviews" ADD CONSTRAINT "diff_reviews_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "diff_reviews" ADD CONSTRAINT "diff_reviews_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "diff_reviews_user_created_idx" ON "diff_reviews" USING btree ("user_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
ALTER TABLE "finding_verdicts" ADD CONSTRAINT "finding_verdicts_diff_review_id_diff_reviews_id_fk" FOREIGN KEY ("diff_review_id") REFERENCES "public"."diff_reviews"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "finding_verdicts_diff_review_finding_key" ON "finding_verdicts" USING btree ("diff_review_id","finding_id");--> statement-breakpoint
ALTER TABLE "finding_verdicts" ADD CONSTRAINT "finding_verdicts_one_review" CHECK (("finding_verdicts"."pull_request_id" is null) <> ("finding_verdicts"."diff_review_id" is null));