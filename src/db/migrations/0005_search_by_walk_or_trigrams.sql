-- Search: a term that fills a page is found by walking the newest rows of a list index; a rarer one
-- through this GIN index, which now also holds the list filters (status, repository), so a rare term
-- under a filter reads no row it does not return.
DROP INDEX "pull_requests_user_title_trgm_idx";--> statement-breakpoint
CREATE INDEX "pull_requests_user_title_search_idx" ON "pull_requests" USING gin ("user_id","review_status","repository_name","search_title" gin_trgm_ops);