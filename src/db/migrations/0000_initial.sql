CREATE TYPE "public"."login_method" AS ENUM('codehost', 'email');--> statement-breakpoint
CREATE TYPE "public"."thumbs_feedback" AS ENUM('postive', 'negitive');--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" varchar(56) NOT NULL,
	"email" varchar(264) NOT NULL,
	"password" text,
	"login_method" "login_method" NOT NULL,
	"codehost_username" varchar(100),
	"codehost_user_id" bigint,
	"codehost_token" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"last_login_at" timestamp (3) with time zone,
	"email_notification" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_lowercase" CHECK ("users"."email" = lower("users"."email"))
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" varchar(64) PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"user_agent" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "otp_records" (
	"key" varchar(300) PRIMARY KEY NOT NULL,
	"otp_hash" varchar(64) NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"name" varchar(56),
	"password_hash" text,
	"verified_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_settings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"quick_mode_model" varchar(256),
	"focused_mode_model" varchar(256),
	"deep_mode_model" varchar(256),
	"system_prompt" text,
	"quick_mode_prompt" text,
	"foucsed_mode_prompt" text,
	"deep_mode_prompt" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "byok_providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"model_provider_name" varchar(32) DEFAULT 'custom' NOT NULL,
	"api_key" text NOT NULL,
	"custom_models" boolean DEFAULT false NOT NULL,
	"custom_base_url" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"available_models" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pull_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"pr_id" bigint NOT NULL,
	"repository_id" varchar(64),
	"repository_name" varchar(256) NOT NULL,
	"pr_number" integer NOT NULL,
	"title" text NOT NULL,
	"state" varchar(56) NOT NULL,
	"html_url" text,
	"diff" text DEFAULT '0' NOT NULL,
	"diff_content" text,
	"draft" boolean DEFAULT false NOT NULL,
	"merged" boolean DEFAULT false NOT NULL,
	"review_status" varchar(56) DEFAULT 'pending' NOT NULL,
	"head_branch" varchar(256) NOT NULL,
	"base_branch" varchar(256) NOT NULL,
	"base_sha" varchar(64) NOT NULL,
	"head_sha" varchar(64) NOT NULL,
	"merge_commit_sha" varchar(64),
	"commits_count" integer,
	"additions" integer,
	"deletions" integer,
	"changed_files" integer,
	"body_blob" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pull_requests_pr_id_key" UNIQUE("pr_id")
);
--> statement-breakpoint
CREATE TABLE "repositories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"repository_id" bigint NOT NULL,
	"full_name" varchar(256) NOT NULL,
	"html_url" text,
	"private" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reviews" (
	"id" uuid PRIMARY KEY NOT NULL,
	"pr_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"state" varchar(56) DEFAULT 'WEBHOOK_RECEIVED' NOT NULL,
	"status" varchar(56) DEFAULT 'pending' NOT NULL,
	"trigged_by" varchar(16) NOT NULL,
	"mode" varchar(16) DEFAULT 'focused' NOT NULL,
	"attempt_number" integer DEFAULT 1 NOT NULL,
	"duration" integer DEFAULT 0 NOT NULL,
	"review_summary" text,
	"reviewd_sha" varchar(64),
	"review_raw_json" jsonb,
	"coverage" jsonb,
	"failure_reason" text,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "ai_conversations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"title" varchar(256) NOT NULL,
	"connected_pr_title" text,
	"connected_pr_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"conversation_id" uuid NOT NULL,
	"message_count" bigint GENERATED ALWAYS AS IDENTITY (sequence name "ai_messages_message_count_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"input_message" text NOT NULL,
	"output_message" text DEFAULT '' NOT NULL,
	"used_tool_calls" text[] DEFAULT '{}' NOT NULL,
	"llm_model" varchar(256),
	"regenerated" boolean DEFAULT false NOT NULL,
	"thumbs_feedback" "thumbs_feedback",
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"uncached_input_tokens" integer DEFAULT 0 NOT NULL,
	"cached_input_read_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"reasoning_output_tokens" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"input_cost" numeric(18, 10) DEFAULT 0 NOT NULL,
	"output_cost" numeric(18, 10) DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"reasoning_tokens" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"queue" varchar(64) NOT NULL,
	"job_key" varchar(256),
	"payload" jsonb NOT NULL,
	"status" varchar(16) DEFAULT 'waiting' NOT NULL,
	"attempts_made" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"backoff_ms" integer NOT NULL,
	"run_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD CONSTRAINT "workspace_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "byok_providers" ADD CONSTRAINT "byok_providers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD CONSTRAINT "pull_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repositories" ADD CONSTRAINT "repositories_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_pr_id_pull_requests_pr_id_fk" FOREIGN KEY ("pr_id") REFERENCES "public"."pull_requests"("pr_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_conversations" ADD CONSTRAINT "ai_conversations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_conversations" ADD CONSTRAINT "ai_conversations_connected_pr_id_pull_requests_id_fk" FOREIGN KEY ("connected_pr_id") REFERENCES "public"."pull_requests"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_messages" ADD CONSTRAINT "ai_messages_conversation_id_ai_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."ai_conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage" ADD CONSTRAINT "usage_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "users_codehost_username_key" ON "users" USING btree ("codehost_username");--> statement-breakpoint
CREATE UNIQUE INDEX "users_codehost_user_id_key" ON "users" USING btree ("codehost_user_id");--> statement-breakpoint
CREATE INDEX "sessions_user_id_idx" ON "sessions" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_settings_user_id_key" ON "workspace_settings" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "byok_providers_user_provider_key" ON "byok_providers" USING btree ("user_id","model_provider_name");--> statement-breakpoint
CREATE INDEX "pull_requests_user_updated_idx" ON "pull_requests" USING btree ("user_id","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "pull_requests_user_status_updated_idx" ON "pull_requests" USING btree ("user_id","review_status","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "repositories_user_repository_key" ON "repositories" USING btree ("user_id","repository_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reviews_pr_id_key" ON "reviews" USING btree ("pr_id");--> statement-breakpoint
CREATE INDEX "reviews_user_started_idx" ON "reviews" USING btree ("user_id","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ai_conversations_user_updated_idx" ON "ai_conversations" USING btree ("user_id","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ai_messages_conversation_created_idx" ON "ai_messages" USING btree ("conversation_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_queue_key_key" ON "jobs" USING btree ("queue","job_key");--> statement-breakpoint
CREATE INDEX "jobs_queue_status_run_at_idx" ON "jobs" USING btree ("queue","status","run_at");