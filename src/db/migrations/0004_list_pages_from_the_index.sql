-- List pages from the indexes: each list index ends with the searchable title (its first 256
-- characters lower-cased, a stored column), so a search walks an index without reading the rows it skips.
DROP INDEX "pull_requests_user_updated_idx";--> statement-breakpoint
DROP INDEX "pull_requests_user_status_updated_idx";--> statement-breakpoint
DROP INDEX "pull_requests_user_repository_updated_idx";--> statement-breakpoint
DROP INDEX "pull_requests_user_title_trgm_idx";--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "search_title" text GENERATED ALWAYS AS (lower(left(title, 256))) STORED;--> statement-breakpoint
CREATE INDEX "pull_requests_user_updated_idx" ON "pull_requests" USING btree ("user_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST,"search_title");--> statement-breakpoint
CREATE INDEX "pull_requests_user_status_updated_idx" ON "pull_requests" USING btree ("user_id","review_status","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST,"search_title");--> statement-breakpoint
CREATE INDEX "pull_requests_user_repository_updated_idx" ON "pull_requests" USING btree ("user_id","repository_name","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST,"search_title");--> statement-breakpoint
CREATE INDEX "pull_requests_user_title_trgm_idx" ON "pull_requests" USING gin ("user_id","search_title" gin_trgm_ops);