CREATE TABLE "bitbucket_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"org_id" uuid,
	"workspace" varchar(255) NOT NULL,
	"repo_slug" varchar(255) NOT NULL,
	"repository_uuid" varchar(64) NOT NULL,
	"full_name" text NOT NULL,
	"html_url" text NOT NULL,
	"token" text NOT NULL,
	"email" text,
	"webhook_secret" text NOT NULL,
	"hook_uuid" varchar(64) NOT NULL,
	"commands" boolean DEFAULT false NOT NULL,
	"account_uuid" varchar(64),
	"status" varchar(16) DEFAULT 'active' NOT NULL,
	"broken_reason" text,
	"broken_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bitbucket_pull_requests" (
	"connection_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"pr_id" bigint DEFAULT -nextval('pull_request_key_seq') NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bitbucket_pull_requests_connection_id_number_pk" PRIMARY KEY("connection_id","number"),
	CONSTRAINT "bitbucket_pull_requests_pr_id_key" UNIQUE("pr_id")
);
--> statement-breakpoint
ALTER TABLE "bitbucket_connections" ADD CONSTRAINT "bitbucket_connections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bitbucket_connections" ADD CONSTRAINT "bitbucket_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bitbucket_pull_requests" ADD CONSTRAINT "bitbucket_pull_requests_connection_id_bitbucket_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."bitbucket_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bitbucket_connections_user_repository_key" ON "bitbucket_connections" USING btree ("user_id","repository_uuid");--> statement-breakpoint
CREATE INDEX "bitbucket_connections_repository_idx" ON "bitbucket_connections" USING btree ("repository_uuid");--> statement-breakpoint
CREATE INDEX "bitbucket_connections_org_idx" ON "bitbucket_connections" USING btree ("org_id");