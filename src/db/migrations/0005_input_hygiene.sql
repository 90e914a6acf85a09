-- The raw webhook payload as received (decisions.md §7): json keeps \u0000 escapes, jsonb refuses them.
ALTER TABLE "pull_requests" ALTER COLUMN "body_blob" SET DATA TYPE json USING "body_blob"::json;
