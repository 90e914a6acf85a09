DROP INDEX "pull_requests_user_updated_idx";--> statement-breakpoint
DROP INDEX "pull_requests_user_status_updated_idx";--> statement-breakpoint
DROP INDEX "pull_requests_user_repository_updated_idx";--> statement-breakpoint
CREATE INDEX "pull_requests_user_updated_idx" ON "pull_requests" USING btree ("user_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST,"search_title","org_id");--> statement-breakpoint
CREATE INDEX "pull_requests_user_status_updated_idx" ON "pull_requests" USING btree ("user_id","review_status","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST,"search_title","org_id");--> statement-breakpoint
CREATE INDEX "pull_requests_user_repository_updated_idx" ON "pull_requests" USING btree ("user_id","repository_name","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST,"search_title","org_id");