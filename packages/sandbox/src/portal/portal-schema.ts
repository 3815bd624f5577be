/**
 * The portal's tables, in the sandbox's own SQLite file. `portal_deliveries` and
 * `portal_attempts` are a projection of the engine's store keyed by event id with the company
 * attached (the engine knows nothing of companies), so the Deliveries page can filter and page
 * per company with indexes; the engine stays the source of truth and the projection is
 * reconciled from it at start. `portal_actions` is the audit log of what integrators asked for
 * (redeliver, replay, test event), keyed by the click's idempotency key; `portal_replayed` which
 * deliveries each replay queued.
 */
export const PORTAL_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS portal_deliveries (
  event_id TEXT PRIMARY KEY,
  company_id INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  short_key TEXT NOT NULL,
  kind TEXT NOT NULL,
  url TEXT,
  auth_key_hint TEXT,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_outcome TEXT,
  last_status INTEGER,
  next_attempt_at INTEGER,
  note TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS portal_deliveries_company ON portal_deliveries(company_id, created_at, event_id);
CREATE INDEX IF NOT EXISTS portal_deliveries_state ON portal_deliveries(company_id, state, created_at, event_id);
CREATE INDEX IF NOT EXISTS portal_deliveries_session ON portal_deliveries(company_id, session_id);
CREATE INDEX IF NOT EXISTS portal_deliveries_short_key ON portal_deliveries(company_id, short_key);
CREATE INDEX IF NOT EXISTS portal_deliveries_open ON portal_deliveries(state) WHERE state IN ('queued', 'pending');
CREATE TABLE IF NOT EXISTS portal_attempts (
  event_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  company_id INTEGER NOT NULL,
  at INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  status INTEGER,
  latency_ms REAL NOT NULL,
  error TEXT,
  PRIMARY KEY (event_id, attempt)
);
CREATE INDEX IF NOT EXISTS portal_attempts_company ON portal_attempts(company_id, at);
CREATE TABLE IF NOT EXISTS portal_actions (
  company_id INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT,
  user_id INTEGER NOT NULL,
  username TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  result_json TEXT,
  PRIMARY KEY (company_id, idempotency_key)
);
CREATE INDEX IF NOT EXISTS portal_actions_target ON portal_actions(company_id, target);
CREATE TABLE IF NOT EXISTS portal_replayed (
  company_id INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL,
  event_id TEXT NOT NULL,
  PRIMARY KEY (company_id, idempotency_key, event_id)
) WITHOUT ROWID;
`;
