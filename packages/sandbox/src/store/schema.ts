/**
 * The sandbox's own tables (companies, users, sessions, the webhook outbox and dashboard
 * logins). Deliveries and their attempts live in the delivery engine's store.
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS companies (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  webhook_url TEXT,
  auth_key TEXT,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  short_key TEXT NOT NULL,
  state TEXT NOT NULL,
  outcome_json TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  created_seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_company ON sessions(company_id, created_seq);
CREATE TABLE IF NOT EXISTS outbox (
  event_id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE REFERENCES sessions(id),
  company_id INTEGER NOT NULL REFERENCES companies(id),
  url TEXT,
  auth_key TEXT,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  relayed_at INTEGER,
  relay_error TEXT
);
CREATE INDEX IF NOT EXISTS outbox_unrelayed ON outbox(relayed_at) WHERE relayed_at IS NULL;
CREATE TABLE IF NOT EXISTS logins (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  csrf_token TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
`;
