import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Row } from './sql-row.js';

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Dashboard logins (the `logins` table): only a hash of each session token is stored. */
export class DashboardLogins {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Starts a login that ends `ttlMs` after `now`, and forgets the expired ones. */
  create(userId: number, now: number, ttlMs: number): { token: string; csrfToken: string } {
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    this.#db.prepare('DELETE FROM logins WHERE expires_at <= ?').run(now);
    this.#db
      .prepare('INSERT INTO logins (token_hash, user_id, csrf_token, expires_at) VALUES (?, ?, ?, ?)')
      .run(hashToken(token), userId, csrfToken, now + ttlMs);
    return { token, csrfToken };
  }

  find(token: string, now: number): { userId: number; csrfToken: string } | undefined {
    const row = this.#db
      .prepare('SELECT user_id, csrf_token FROM logins WHERE token_hash = ? AND expires_at > ?')
      .get(hashToken(token), now) as Row | undefined;
    return row && { userId: Number(row.user_id), csrfToken: String(row.csrf_token) };
  }

  delete(token: string): void {
    this.#db.prepare('DELETE FROM logins WHERE token_hash = ?').run(hashToken(token));
  }
}
