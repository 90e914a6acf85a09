CREATE TABLE "webhook_deliveries" (
	"delivery_id" varchar(128) PRIMARY KEY NOT NULL,
	"event" varchar(64) NOT NULL,
	"action" varchar(64) NOT NULL,
	"user_id" uuid NOT NULL,
	"pr_id" bigint NOT NULL,
	"head_sha" varchar(64) NOT NULL,
	"starts_review" boolean NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"enqueued_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "reviews" ADD COLUMN "head_sha" varchar(64);--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_unqueued_idx" ON "webhook_deliveries" USING btree ("received_at") WHERE "webhook_deliveries"."starts_review" and "webhook_deliveries"."enqueued_at" is null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_user_idx" ON "webhook_deliveries" USING btree ("user_id");