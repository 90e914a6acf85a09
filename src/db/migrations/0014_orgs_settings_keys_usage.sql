ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_key";--> statement-breakpoint
ALTER TABLE "workspace_settings" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "byok_providers" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
-- One of user_id and org_id is null from now on: unique indexes (below) replace the primary key.
ALTER TABLE "usage" DROP CONSTRAINT "usage_pkey";--> statement-breakpoint
ALTER TABLE "usage" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "byok_providers" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "usage" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "member_id" uuid;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "member_id" uuid;--> statement-breakpoint
ALTER TABLE "review_runs" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD CONSTRAINT "workspace_settings_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "byok_providers" ADD CONSTRAINT "byok_providers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pull_requests" ADD CONSTRAINT "pull_requests_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage" ADD CONSTRAINT "usage_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_runs" ADD CONSTRAINT "review_runs_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_settings_org_id_key" ON "workspace_settings" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "byok_providers_org_provider_key" ON "byok_providers" USING btree ("org_id","model_provider_name");--> statement-breakpoint
CREATE INDEX "pull_requests_org_idx" ON "pull_requests" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "usage_user_id_key" ON "usage" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "usage_org_id_key" ON "usage" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "usage_records_org_at_idx" ON "usage_records" USING btree ("org_id","at","id");--> statement-breakpoint
CREATE INDEX "review_runs_org_completed_idx" ON "review_runs" USING btree ("org_id","completed_at");--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_key" UNIQUE NULLS NOT DISTINCT("user_id","org_id","day","kind","model_id","source","repository_name","member_id");--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD CONSTRAINT "workspace_settings_one_owner" CHECK (num_nonnulls("workspace_settings"."user_id", "workspace_settings"."org_id") = 1);--> statement-breakpoint
ALTER TABLE "byok_providers" ADD CONSTRAINT "byok_providers_one_owner" CHECK (num_nonnulls("byok_providers"."user_id", "byok_providers"."org_id") = 1);--> statement-breakpoint
ALTER TABLE "usage" ADD CONSTRAINT "usage_one_owner" CHECK (num_nonnulls("usage"."user_id", "usage"."org_id") = 1);--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_one_owner" CHECK (num_nonnulls("usage_records"."user_id", "usage_records"."org_id") = 1);--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_one_owner" CHECK (num_nonnulls("usage_daily"."user_id", "usage_daily"."org_id") = 1);