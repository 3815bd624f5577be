-- The transactional inbox of @kyc/webhook-receiver (Postgres).
-- The same statements migrateInbox(inbox) runs, for your own migration tool. With another
-- table name (inbox options: table), rename kyc_webhook_inbox everywhere.

CREATE TABLE IF NOT EXISTS "kyc_webhook_inbox" (
  event_key varchar(512) PRIMARY KEY,
  session_id varchar(256) NOT NULL,
  status varchar(32),
  event_at_ms bigint,
  received_at_ms bigint NOT NULL
);

CREATE INDEX IF NOT EXISTS "kyc_webhook_inbox_received_at" ON "kyc_webhook_inbox" (received_at_ms);

CREATE TABLE IF NOT EXISTS "kyc_webhook_inbox_sessions" (
  session_id varchar(256) PRIMARY KEY,
  status varchar(32),
  event_at_ms bigint NOT NULL,
  applied_at_ms bigint NOT NULL
);

CREATE INDEX IF NOT EXISTS "kyc_webhook_inbox_sessions_applied_at" ON "kyc_webhook_inbox_sessions" (applied_at_ms);
