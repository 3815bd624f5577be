import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';

/** What every CLI token starts with, so a leaked one is recognisable (and told apart from a password). */
export const CLI_TOKEN_PREFIX = 'kycs_';
/** The shape of a CLI token: the prefix and 32 random bytes in base64url. */
export const CLI_TOKEN_PATTERN = /^kycs_[A-Za-z0-9_-]{43}$/;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS cli_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL
);
`;
const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The API keys `kyc-sandbox login` makes for the CLI, so `listen` and `trigger` need no password
 * on disk: a token acts as its user on the sandbox API (`/sandbox/…`) and the listener, never on
 * the service API, and only its SHA-256 is stored. `logout` revokes it.
 */
export class CliTokens {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#db.exec(SCHEMA);
  }

  /** A new token for the user; shown once, to the CLI that asked. */
  create(userId: number, now: number): string {
    const token = `${CLI_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    this.#db
      .prepare('INSERT INTO cli_tokens (token_hash, user_id, created_at) VALUES (?, ?, ?)')
      .run(hash(token), userId, now);
    return token;
  }

  /** The user a token acts as, or `undefined` for an unknown or revoked one. */
  userOf(token: string): number | undefined {
    const row = this.#db.prepare('SELECT user_id FROM cli_tokens WHERE token_hash = ?').get(hash(token)) as
      | { user_id: number }
      | undefined;
    return row?.user_id;
  }

  revoke(token: string): void {
    this.#db.prepare('DELETE FROM cli_tokens WHERE token_hash = ?').run(hash(token));
  }
}
