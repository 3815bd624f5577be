-- The transactional inbox of @kyc/webhook-receiver (MySQL / MariaDB).
-- The same statements migrateInbox(inbox) runs, for your own migration tool. With another
-- table name (inbox options: table), rename kyc_webhook_inbox everywhere.

CREATE TABLE IF NOT EXISTS `kyc_webhook_inbox` (
  event_key varchar(512) NOT NULL PRIMARY KEY,
  session_id varchar(256) NOT NULL,
  status varchar(32) NULL,
  event_at_ms bigint NULL,
  received_at_ms bigint NOT NULL,
  INDEX `kyc_webhook_inbox_received_at` (received_at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS `kyc_webhook_inbox_sessions` (
  session_id varchar(256) NOT NULL PRIMARY KEY,
  status varchar(32) NULL,
  event_at_ms bigint NOT NULL,
  applied_at_ms bigint NOT NULL,
  INDEX `kyc_webhook_inbox_sessions_applied_at` (applied_at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
