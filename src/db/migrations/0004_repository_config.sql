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
CREATE INDEX "repository_learnings_user_repository_idx" ON "repository_learnings" USING btree ("user_id","repository_name","created_at" DESC NULLS LAST);