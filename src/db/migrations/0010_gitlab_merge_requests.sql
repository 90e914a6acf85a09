CREATE SEQUENCE "public"."gitlab_pr_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "gitlab_merge_requests" (
	"connection_id" uuid NOT NULL,
	"iid" integer NOT NULL,
	"pr_id" bigint DEFAULT -nextval('gitlab_pr_id_seq') NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gitlab_merge_requests_connection_id_iid_pk" PRIMARY KEY("connection_id","iid"),
	CONSTRAINT "gitlab_merge_requests_pr_id_key" UNIQUE("pr_id")
);
--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "provider" varchar(16) DEFAULT 'github' NOT NULL;--> statement-breakpoint
ALTER TABLE "gitlab_merge_requests" ADD CONSTRAINT "gitlab_merge_requests_connection_id_gitlab_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."gitlab_connections"("id") ON DELETE cascade ON UPDATE no action;