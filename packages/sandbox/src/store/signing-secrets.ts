import type { SecretSealer } from '@kyc/delivery-engine';
import type Database from 'better-sqlite3';
import { signingSecretContext } from './sandbox-secrets.js';
import { optionalInteger, type Row } from './sql-row.js';

/** One of a company's signing secrets. `stopsAt` is set on the old secret of a rotation. */
export interface SigningSecretRecord {
  readonly label: string;
  readonly secret: string;
  readonly createdAt: number;
  /** When an old secret stops signing (the end of the rotation's overlap); `undefined` for the current one. */
  readonly stopsAt: number | undefined;
}

/** A secret that signed an attempt, as the audit keeps it: its label and creation time. */
export interface SigningSecretUse {
  readonly label: string;
  readonly createdAt: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS signing_secrets (
  company_id INTEGER NOT NULL REFERENCES companies(id),
  seq INTEGER NOT NULL,
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  stops_at INTEGER,
  PRIMARY KEY (company_id, seq)
);
-- Labels never repeat, even after every secret was removed: a label names one secret for good.
CREATE TABLE IF NOT EXISTS signing_secrets_seq (
  company_id INTEGER PRIMARY KEY REFERENCES companies(id),
  seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS signing_uses (
  event_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  signed_with TEXT NOT NULL,
  PRIMARY KEY (event_id, attempt)
) WITHOUT ROWID;
`;

/**
 * Each company's Standard Webhooks signing secrets: the current one and, during a rotation's
 * overlap, the old one beside it. A secret whose overlap is over is deleted, not kept: a
 * retired secret is of use to nobody but someone forging old deliveries. Labels (`secret-3`)
 * count up per company and are what the portal, the logs and the attempt inspector name.
 * `signing_uses` records which labels signed each attempt (the inspector's "signed with").
 */
export class SigningSecrets {
  readonly #db: Database.Database;
  readonly #sealer: SecretSealer;

  /** Secrets are stored sealed by `sealer`, each bound to its company and label. */
  constructor(db: Database.Database, sealer: SecretSealer) {
    this.#db = db;
    this.#sealer = sealer;
    this.#db.exec(SCHEMA);
  }

  #record(row: Row): SigningSecretRecord {
    const companyId = Number(row.company_id);
    const seq = Number(row.seq);
    return {
      label: `secret-${seq}`,
      secret: this.#sealer.open(String(row.secret), signingSecretContext(companyId, seq)),
      createdAt: Number(row.created_at),
      stopsAt: optionalInteger(row.stops_at),
    };
  }

  /** The secrets that sign now, newest first (the current one, then the old one of an overlap). */
  active(companyId: number, now: number): SigningSecretRecord[] {
    const rows = this.#db
      .prepare(
        'SELECT * FROM signing_secrets WHERE company_id = ? AND (stops_at IS NULL OR stops_at > ?) ORDER BY seq DESC',
      )
      .all(companyId, now) as Row[];
    return rows.map((row) => this.#record(row));
  }

  /**
   * Makes `secret` the current one. The previous current one keeps signing until `stopsAt`
   * (pass `now` to end it at once); any older one still in an overlap ends now, so at most two
   * sign at once. Secrets already stopped are deleted.
   */
  add(companyId: number, secret: string, now: number, stopsAt: number): SigningSecretRecord {
    return this.#db.transaction(() => {
      this.#db.prepare('DELETE FROM signing_secrets WHERE company_id = ? AND stops_at IS NOT NULL').run(companyId);
      this.#db
        .prepare('UPDATE signing_secrets SET stops_at = ? WHERE company_id = ? AND stops_at IS NULL')
        .run(stopsAt, companyId);
      this.#db.prepare('DELETE FROM signing_secrets WHERE company_id = ? AND stops_at <= ?').run(companyId, now);
      const seq = Number(
        (
          this.#db
            .prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM signing_secrets_seq WHERE company_id = ?')
            .get(companyId) as Row
        ).n,
      );
      this.#db
        .prepare('INSERT OR REPLACE INTO signing_secrets_seq (company_id, seq) VALUES (?, ?)')
        .run(companyId, seq);
      this.#db
        .prepare('INSERT INTO signing_secrets (company_id, seq, secret, created_at) VALUES (?, ?, ?, ?)')
        .run(companyId, seq, this.#sealer.seal(secret, signingSecretContext(companyId, seq)), now);
      return { label: `secret-${seq}`, secret, createdAt: now, stopsAt: undefined };
    })();
  }

  /** Ends a rotation's overlap now: only the current secret signs from here on. */
  endOverlap(companyId: number): number {
    return this.#db.prepare('DELETE FROM signing_secrets WHERE company_id = ? AND stops_at IS NOT NULL').run(companyId)
      .changes;
  }

  /** Turns signing off for the company: every secret is deleted. */
  removeAll(companyId: number): number {
    return this.#db.prepare('DELETE FROM signing_secrets WHERE company_id = ?').run(companyId).changes;
  }

  /**
   * Which secrets (label and creation time, never the value) signed one attempt; a repeat of the
   * attempt (a lapsed claim) overwrites it. Kept after the secret itself is deleted.
   */
  recordUse(eventId: string, attempt: number, secrets: readonly SigningSecretUse[]): void {
    const uses = secrets.map(({ label, createdAt }) => ({ label, createdAt }));
    this.#db
      .prepare('INSERT OR REPLACE INTO signing_uses (event_id, attempt, signed_with) VALUES (?, ?, ?)')
      .run(eventId, attempt, JSON.stringify(uses));
  }

  /** The secrets that signed each attempt of an event, by attempt number. */
  usesOf(eventId: string): Map<number, SigningSecretUse[]> {
    const rows = this.#db
      .prepare('SELECT attempt, signed_with FROM signing_uses WHERE event_id = ?')
      .all(eventId) as Row[];
    return new Map(rows.map((row) => [Number(row.attempt), JSON.parse(String(row.signed_with)) as SigningSecretUse[]]));
  }
}
