CREATE TABLE "gitlab_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"base_url" text NOT NULL,
	"project_id" bigint NOT NULL,
	"project_path" text NOT NULL,
	"project_web_url" text NOT NULL,
	"token" text NOT NULL,
	"webhook_secret" text NOT NULL,
	"hook_id" bigint NOT NULL,
	"token_user_id" bigint NOT NULL,
	"token_username" varchar(255) NOT NULL,
	"status" varchar(16) DEFAULT 'active' NOT NULL,
	"broken_reason" text,
	"broken_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gitlab_connections" ADD CONSTRAINT "gitlab_connections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "gitlab_connections_user_project_key" ON "gitlab_connections" USING btree ("user_id","base_url","project_id");--> statement-breakpoint
CREATE INDEX "gitlab_connections_project_idx" ON "gitlab_connections" USING btree ("project_id");