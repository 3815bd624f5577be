import { randomBytes } from 'node:crypto';
import type { SessionState } from '@kyc/contracts';
import type { SealingKey, SecretSealer } from '@kyc/delivery-engine';
import Database from 'better-sqlite3';
import { STATE } from '../domain/enum-values.js';
import { authKeyHint } from '../domain/masked-auth-key.js';
import type { SessionOutcome } from '../domain/outcome.js';
import type { SessionRecord } from '../domain/session-record.js';
import { ForwardLog } from '../listen/forward-log.js';
import { deliveryUrlOf } from '../listen/listener-url.js';
import { PortalStore } from '../portal/portal-store.js';
import { SandboxError } from '../sandbox-error.js';
import { CliTokens } from './cli-tokens.js';
import { DashboardLogins } from './dashboard-logins.js';
import { Outbox } from './outbox.js';
import {
  authKeyContext,
  resealValues,
  type SecretsKeySource,
  sandboxSealer,
  sealClearValues,
} from './sandbox-secrets.js';
import { SCHEMA_SQL } from './schema.js';
import { SigningSecrets } from './signing-secrets.js';
import { optionalInteger, optionalText, type Row } from './sql-row.js';

/** A company and its webhook settings. `authKey` (stored sealed) never leaves the server except to the engine. */
export interface CompanyRecord {
  readonly id: number;
  readonly name: string;
  readonly webhookUrl: string | undefined;
  readonly authKey: string | undefined;
  /** When a `kyc-sandbox listen` of the company last connected: its events then go to the listener when no URL is saved. */
  readonly listenedAt: number | undefined;
}

/** An operator-issued user. */
export interface UserRecord {
  readonly id: number;
  readonly companyId: number;
  readonly username: string;
  readonly passwordHash: string;
}

function toSession(row: Row): SessionRecord {
  return {
    id: String(row.id),
    companyId: Number(row.company_id),
    shortKey: String(row.short_key),
    state: String(row.state) as SessionState,
    outcome: JSON.parse(String(row.outcome_json)) as SessionOutcome,
    startedAt: Number(row.started_at),
    endedAt: optionalInteger(row.ended_at),
  };
}

const SHORT_KEY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** The sandbox's tables in one SQLite file (WAL). Synchronous and single-process, like the sandbox. */
export class SandboxStore {
  readonly #db: Database.Database;
  /** The portal's projection and audit log, in the same file so a finish writes both in one transaction. */
  readonly portal: PortalStore;
  /** Which attempts went through `kyc-sandbox listen`. */
  readonly forwards: ForwardLog;
  /** The API keys of `kyc-sandbox login`. */
  readonly cliTokens: CliTokens;
  /** The dashboard's logins. */
  readonly logins: DashboardLogins;
  /** The webhook events written with each finish, waiting for (or handed to) the engine. */
  readonly outbox: Outbox;
  /** Each company's signing secrets, and which of them signed each attempt. */
  readonly signingSecrets: SigningSecrets;
  /** The secrets key ring (the first seals): the engine's store seals with it too. */
  readonly sealingKeys: readonly SealingKey[];
  readonly #sealer: SecretSealer;

  /**
   * Opens (or makes) `sandbox.db`. Auth Keys and signing secrets are kept sealed with the
   * secrets key (`secrets`); one that does not match what the file sealed refuses to open it
   * (`secrets_key`), and what an older sandbox kept in clear is sealed now.
   */
  constructor(path: string, secrets: SecretsKeySource) {
    let db: Database.Database | undefined;
    try {
      db = new Database(path);
      this.#db = db;
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma('foreign_keys = ON');
      this.#db.exec(SCHEMA_SQL);
      this.portal = new PortalStore(this.#db);
      this.forwards = new ForwardLog(this.#db);
      this.cliTokens = new CliTokens(this.#db);
      this.logins = new DashboardLogins(this.#db);
      this.outbox = new Outbox(this.#db, this.portal);
      const { sealer, keys } = sandboxSealer(this.#db, secrets);
      this.#sealer = sealer;
      this.sealingKeys = keys;
      this.signingSecrets = new SigningSecrets(this.#db, sealer);
      // Files made before the outbox kept the finishing request's trace context.
      const columns = this.#db.prepare('PRAGMA table_info(outbox)').all() as Row[];
      if (!columns.some((column) => column.name === 'trace_parent')) {
        this.#db.exec('ALTER TABLE outbox ADD COLUMN trace_parent TEXT');
      }
      // Files made before kyc-sandbox listen.
      const companyColumns = this.#db.prepare('PRAGMA table_info(companies)').all() as Row[];
      if (!companyColumns.some((column) => column.name === 'listened_at')) {
        this.#db.exec('ALTER TABLE companies ADD COLUMN listened_at INTEGER');
      }
      // Files made when the outbox copied the Auth Key itself: it keeps the last four characters only.
      if (!columns.some((column) => column.name === 'auth_key_hint')) {
        this.#db.exec('ALTER TABLE outbox ADD COLUMN auth_key_hint TEXT');
      }
      // Folders of an older sandbox: the portal takes its key hints from the outbox before it drops them.
      sealClearValues(this.#db, sealer, () => this.portal.backfillFromOutbox(Date.now()));
    } catch (error) {
      if (error instanceof SandboxError) {
        db?.close();
        throw error;
      }
      throw new SandboxError('data_dir', `cannot open the sandbox database ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  ensureCompany(name: string, now: number): number {
    this.#db.prepare('INSERT OR IGNORE INTO companies (name, updated_at) VALUES (?, ?)').run(name, now);
    return Number((this.#db.prepare('SELECT id FROM companies WHERE name = ?').get(name) as Row).id);
  }

  addUser(username: string, passwordHash: string, companyName: string, now: number): UserRecord {
    return this.#db.transaction(() => {
      if (this.findUser(username)) throw new SandboxError('user_exists', `a user named "${username}" already exists`);
      const companyId = this.ensureCompany(companyName, now);
      const result = this.#db
        .prepare('INSERT INTO users (company_id, username, password_hash, created_at) VALUES (?, ?, ?, ?)')
        .run(companyId, username, passwordHash, now);
      return { id: Number(result.lastInsertRowid), companyId, username, passwordHash };
    })();
  }

  findUser(username: string): UserRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM users WHERE username = ?').get(username) as Row | undefined;
    return row && this.#user(row);
  }

  userCount(): number {
    return Number((this.#db.prepare('SELECT COUNT(*) AS n FROM users').get() as Row).n);
  }

  getUser(id: number): UserRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM users WHERE id = ?').get(id) as Row | undefined;
    return row && this.#user(row);
  }

  #user(row: Row): UserRecord {
    return {
      id: Number(row.id),
      companyId: Number(row.company_id),
      username: String(row.username),
      passwordHash: String(row.password_hash),
    };
  }

  getCompany(id: number): CompanyRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM companies WHERE id = ?').get(id) as Row | undefined;
    if (!row) return undefined;
    return {
      id,
      name: String(row.name),
      webhookUrl: optionalText(row.webhook_url),
      authKey: row.auth_key === null ? undefined : this.#sealer.open(String(row.auth_key), authKeyContext(id)),
      listenedAt: optionalInteger(row.listened_at),
    };
  }

  /** A `kyc-sandbox listen` of the company connected. */
  markListened(companyId: number, now: number): void {
    this.#db.prepare('UPDATE companies SET listened_at = ? WHERE id = ?').run(now, companyId);
  }

  /** `authKey: undefined` keeps the stored key; `null` removes it. */
  updateWebhook(companyId: number, url: string | null, authKey: string | null | undefined, now: number): void {
    if (authKey === undefined) {
      this.#db.prepare('UPDATE companies SET webhook_url = ?, updated_at = ? WHERE id = ?').run(url, now, companyId);
    } else {
      const sealed = authKey === null ? null : this.#sealer.seal(authKey, authKeyContext(companyId));
      this.#db
        .prepare('UPDATE companies SET webhook_url = ?, auth_key = ?, updated_at = ? WHERE id = ?')
        .run(url, sealed, now, companyId);
    }
  }

  createSession(companyId: number, outcome: SessionOutcome, now: number): SessionRecord {
    const id = `sess_${randomBytes(12).toString('hex')}`;
    const shortKey = Array.from(randomBytes(6), (byte) => SHORT_KEY_ALPHABET[byte % SHORT_KEY_ALPHABET.length]).join(
      '',
    );
    const seq = Number(
      (this.#db.prepare('SELECT COALESCE(MAX(created_seq), 0) + 1 AS n FROM sessions').get() as Row).n,
    );
    this.#db
      .prepare(
        'INSERT INTO sessions (id, company_id, short_key, state, outcome_json, started_at, created_seq) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, companyId, shortKey, STATE.IN_PROGRESS, JSON.stringify(outcome), now, seq);
    return { id, companyId, shortKey, state: STATE.IN_PROGRESS, outcome, startedAt: now, endedAt: undefined };
  }

  /** A session of this company; another company's session is reported as missing (no enumeration). */
  getSession(companyId: number, id: string): SessionRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM sessions WHERE id = ? AND company_id = ?').get(id, companyId) as
      | Row
      | undefined;
    return row && toSession(row);
  }

  listSessions(companyId: number, limit = 200): SessionRecord[] {
    const rows = this.#db
      .prepare('SELECT * FROM sessions WHERE company_id = ? ORDER BY created_seq DESC LIMIT ?')
      .all(companyId, limit) as Row[];
    return rows.map(toSession);
  }

  /**
   * Marks a session finished and writes its webhook to the outbox in one transaction (the
   * outbox pattern): either both happen or neither. Finishing a finished session changes
   * nothing and reports `finished: false`. The event goes where {@link deliveryUrlOf} says.
   */
  finishSession(
    companyId: number,
    id: string,
    now: number,
    buildBody: (session: SessionRecord, endedAt: number) => string,
    traceParent?: string,
  ): { session: SessionRecord; finished: boolean } | undefined {
    return this.#db
      .transaction(() => {
        const session = this.getSession(companyId, id);
        if (!session) return undefined;
        if (session.state === STATE.FINISHED) return { session, finished: false };
        const endedAt = Math.max(now, session.startedAt);
        const body = buildBody(session, endedAt);
        const company = this.getCompany(companyId);
        const url = company === undefined ? undefined : deliveryUrlOf(company);
        this.#db
          .prepare('UPDATE sessions SET state = ?, ended_at = ? WHERE id = ?')
          .run(STATE.FINISHED, endedAt, session.id);
        // No Auth Key here: the engine asks for the company's key when it sends.
        const eventId = this.outbox.insert({
          sessionId: id,
          companyId,
          url,
          authKeyHint: authKeyHint(company?.authKey),
          body,
          createdAt: now,
          traceParent,
        });
        this.portal.insertDelivery({
          eventId,
          companyId,
          sessionId: id,
          shortKey: session.shortKey,
          kind: 'session',
          url,
          authKeyHint: authKeyHint(company?.authKey),
          state: 'queued',
          note: undefined,
          createdAt: now,
          updatedAt: now,
        });
        return { session: { ...session, state: STATE.FINISHED, endedAt }, finished: true };
      })
      .immediate();
  }

  /** Seals every Auth Key and signing secret again with the first key of the ring; returns how many. */
  resealSecrets(): number {
    return resealValues(this.#db, this.#sealer);
  }

  close(): void {
    this.#db.close();
  }
}
