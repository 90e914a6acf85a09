ALTER TABLE "finding_verdicts" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "repository_learnings" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "finding_verdicts" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "repository_learnings" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "finding_verdicts" ADD CONSTRAINT "finding_verdicts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repository_learnings" ADD CONSTRAINT "repository_learnings_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A verdict on an organization's pull request (or a diff reviewed for it) is the organization's, and so is its learning (decisions.md §15).
UPDATE "finding_verdicts" AS v SET "org_id" = p."org_id", "user_id" = NULL FROM "pull_requests" AS p WHERE p."id" = v."pull_request_id" AND p."org_id" IS NOT NULL;--> statement-breakpoint
UPDATE "finding_verdicts" AS v SET "org_id" = d."org_id", "user_id" = NULL FROM "diff_reviews" AS d WHERE d."id" = v."diff_review_id" AND d."org_id" IS NOT NULL;--> statement-breakpoint
UPDATE "repository_learnings" AS l SET "org_id" = v."org_id", "user_id" = NULL FROM "finding_verdicts" AS v WHERE v."id" = l."verdict_id" AND v."org_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "finding_verdicts_org_repository_idx" ON "finding_verdicts" USING btree ("org_id","repository_name");--> statement-breakpoint
CREATE INDEX "repository_learnings_org_repository_idx" ON "repository_learnings" USING btree ("org_id","repository_name","created_at" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "finding_verdicts" ADD CONSTRAINT "finding_verdicts_one_owner" CHECK (num_nonnulls("finding_verdicts"."user_id", "finding_verdicts"."org_id") = 1);--> statement-breakpoint
ALTER TABLE "repository_learnings" ADD CONSTRAINT "repository_learnings_one_owner" CHECK (num_nonnulls("repository_learnings"."user_id", "repository_learnings"."org_id") = 1);