ALTER TABLE "github_installations" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "gitlab_connections" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "github_installations" ADD CONSTRAINT "github_installations_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gitlab_connections" ADD CONSTRAINT "gitlab_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "github_installations_org_idx" ON "github_installations" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "gitlab_connections_org_idx" ON "gitlab_connections" USING btree ("org_id");