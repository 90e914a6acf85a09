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