CREATE TABLE "usage_records" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "usage_records_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" varchar(16) NOT NULL,
	"model_id" varchar(256) NOT NULL,
	"source" varchar(32) NOT NULL,
	"input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"cost_usd" numeric(18, 10) NOT NULL,
	"pull_request_id" uuid,
	"repository_name" varchar(256),
	"duration_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"kind" varchar(16) NOT NULL,
	"model_id" varchar(256) NOT NULL,
	"source" varchar(32) NOT NULL,
	"repository_name" varchar(256),
	"generations" integer NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cost_usd" numeric(18, 10) NOT NULL,
	CONSTRAINT "usage_daily_key" UNIQUE NULLS NOT DISTINCT("user_id","day","kind","model_id","source","repository_name")
);
--> statement-breakpoint
CREATE TABLE "review_runs" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"review_id" uuid,
	"mode" varchar(16) NOT NULL,
	"status" varchar(16) NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"completed_at" timestamp (3) with time zone NOT NULL,
	"duration_ms" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_runs" ADD CONSTRAINT "review_runs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_runs" ADD CONSTRAINT "review_runs_review_id_reviews_id_fk" FOREIGN KEY ("review_id") REFERENCES "public"."reviews"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "usage_records_user_at_idx" ON "usage_records" USING btree ("user_id","at","id");--> statement-breakpoint
CREATE INDEX "review_runs_user_completed_idx" ON "review_runs" USING btree ("user_id","completed_at");--> statement-breakpoint
-- Runs finished before this migration: each review row still holds its last one.
INSERT INTO "review_runs" ("run_id", "user_id", "review_id", "mode", "status", "started_at", "completed_at", "duration_ms")
SELECT "run_id", "user_id", "id", "mode", "status", "started_at", "completed_at", "duration" FROM "reviews"
WHERE "status" IN ('completed', 'failed') AND "completed_at" IS NOT NULL;
