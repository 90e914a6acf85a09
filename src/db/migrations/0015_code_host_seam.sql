-- The code-host seam: renames, no row moves.
-- Publications and posted findings are every host's, not GitHub's: the tables, the status columns (a GitHub check run, a GitLab commit status) and their constraints take host-neutral names.
ALTER TABLE "github_publications" RENAME TO "publications";--> statement-breakpoint
ALTER TABLE "publications" RENAME COLUMN "check_run_id" TO "status_id";--> statement-breakpoint
ALTER TABLE "publications" RENAME COLUMN "check_run_sha" TO "status_sha";--> statement-breakpoint
ALTER TABLE "publications" RENAME COLUMN "check_run_url" TO "status_url";--> statement-breakpoint
ALTER TABLE "publications" RENAME CONSTRAINT "github_publications_pkey" TO "publications_pkey";--> statement-breakpoint
ALTER TABLE "publications" RENAME CONSTRAINT "github_publications_pull_request_id_pull_requests_id_fk" TO "publications_pull_request_id_pull_requests_id_fk";--> statement-breakpoint
ALTER TABLE "github_posted_findings" RENAME TO "posted_findings";--> statement-breakpoint
ALTER TABLE "posted_findings" RENAME CONSTRAINT "github_posted_findings_pull_request_id_finding_id_pk" TO "posted_findings_pull_request_id_finding_id_pk";--> statement-breakpoint
ALTER TABLE "posted_findings" RENAME CONSTRAINT "github_posted_findings_pull_request_id_pull_requests_id_fk" TO "posted_findings_pull_request_id_pull_requests_id_fk";--> statement-breakpoint
ALTER INDEX "github_posted_findings_comment_idx" RENAME TO "posted_findings_comment_idx";--> statement-breakpoint
-- One sequence of internal pull-request keys for every host but GitHub: GitLab's keys so far came from it, so it keeps counting from where they stopped.
ALTER SEQUENCE "gitlab_pr_id_seq" RENAME TO "pull_request_key_seq";--> statement-breakpoint
ALTER TABLE "gitlab_merge_requests" ALTER COLUMN "pr_id" SET DEFAULT -nextval('pull_request_key_seq');
