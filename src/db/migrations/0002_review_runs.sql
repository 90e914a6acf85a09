ALTER TABLE "reviews" ADD COLUMN "run_id" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "reviews" ADD COLUMN "incremental_diff" text;