ALTER TABLE "users" ADD COLUMN "codehost_refresh_token" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "codehost_token_expires_at" timestamp (3) with time zone;