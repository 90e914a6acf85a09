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
CREATE INDEX "pull_requests_repository_number_idx" ON "pull_requests" USING btree ("repository_name","pr_number");