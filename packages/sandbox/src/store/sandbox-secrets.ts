import { existsSync } from 'node:fs';
import {
  createSecretSealer,
  generateSealingKey,
  loadSealingKeys,
  parseSealingKeys,
  type SealingKey,
  type SecretSealer,
} from '@kyc/delivery-engine';
import type Database from 'better-sqlite3';
import { SandboxError } from '../sandbox-error.js';
import type { Row } from './sql-row.js';

/** Where the sandbox's secrets key comes from (see {@link SandboxOptions.secretsKey}). */
export interface SecretsKeySource {
  /** `KYC_SECRETS_KEY`: `<id>:<base64>` entries, the first seals. */
  readonly secretsKey?: string | undefined;
  /** The key file, used without `secretsKey` (made at the first start). `undefined`: a key for this process only (`:memory:`). */
  readonly keyFile: string | undefined;
}

/** Where each sealed value of `sandbox.db` lives: what it is bound to, so it opens nowhere else. */
export const authKeyContext = (companyId: number) => `sandbox.companies.auth_key:${companyId}`;
export const signingSecretContext = (companyId: number, seq: number) =>
  `sandbox.signing_secrets.secret:${companyId}:${seq}`;

const SEALED = 'kyc-sealed:1:';
const keyIdOf = (value: string) => value.slice(SEALED.length, value.indexOf(':', SEALED.length));

/** One sealed value per key id of `sandbox.db`, with where it lives, to check the keys against. */
function sealedSamples(db: Database.Database): Map<string, { value: string; context: string }> {
  const samples = new Map<string, { value: string; context: string }>();
  // A new file has no signing_secrets table yet (made by SigningSecrets once the keys are known).
  if (db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'signing_secrets'`).get() === undefined) {
    return samples;
  }
  const rows = db
    .prepare(
      `SELECT auth_key AS value, id AS company_id, NULL AS seq FROM companies WHERE auth_key LIKE '${SEALED}%'
       UNION ALL SELECT secret, company_id, seq FROM signing_secrets WHERE secret LIKE '${SEALED}%'`,
    )
    .all() as Row[];
  for (const row of rows) {
    const value = String(row.value);
    const context =
      row.seq === null
        ? authKeyContext(Number(row.company_id))
        : signingSecretContext(Number(row.company_id), Number(row.seq));
    if (!samples.has(keyIdOf(value))) samples.set(keyIdOf(value), { value, context });
  }
  return samples;
}

/**
 * The sandbox's secrets key ring, checked against what `sandbox.db` has sealed: every key id it
 * used must be given and must open its values, or the sandbox refuses to start, naming the id.
 * Without `KYC_SECRETS_KEY` the key file is read, or made (mode 0600) when nothing is sealed yet.
 */
export function sandboxSealer(
  db: Database.Database,
  source: SecretsKeySource,
): { sealer: SecretSealer; keys: SealingKey[] } {
  const samples = sealedSamples(db);
  const fix =
    source.secretsKey !== undefined
      ? 'set KYC_SECRETS_KEY to the key ring that sealed it'
      : `restore the key file ${source.keyFile}, or set KYC_SECRETS_KEY`;
  let keys: SealingKey[];
  try {
    if (source.secretsKey !== undefined) keys = parseSealingKeys(source.secretsKey, 'KYC_SECRETS_KEY');
    else if (source.keyFile === undefined) keys = [generateSealingKey()];
    else if (samples.size > 0 && !existsSync(source.keyFile)) keys = [];
    else keys = loadSealingKeys(source.keyFile, { create: samples.size === 0 });
  } catch (error) {
    throw new SandboxError('secrets_key', `the secrets key cannot be used: ${(error as Error).message}`, {
      cause: error,
    });
  }
  for (const [id, sample] of samples) {
    if (!keys.some((key) => key.id === id)) {
      throw new SandboxError(
        'secrets_key',
        `sandbox.db holds secrets sealed with key id "${id}", which was not given: ${fix}`,
      );
    }
    try {
      createSecretSealer(keys).open(sample.value, sample.context);
    } catch (error) {
      throw new SandboxError(
        'secrets_key',
        `the key given as id "${id}" does not open the secrets sandbox.db sealed with it: ${fix}`,
        {
          cause: error,
        },
      );
    }
  }
  return { sealer: createSecretSealer(keys), keys };
}

/**
 * Seals what a data folder of an older sandbox keeps in clear: the companies' Auth Keys and the
 * signing secrets; the outbox's copies of the Auth Key are dropped (the engine now asks for the
 * key when it sends). Overwritten cells are zeroed, then the file is rewritten and its WAL
 * emptied, so no clear copy stays in a free page. Returns how many values changed.
 */
export function sealClearValues(db: Database.Database, sealer: SecretSealer, beforeDrop: () => void): number {
  const clearKeys = db
    .prepare(`SELECT id, auth_key FROM companies WHERE auth_key IS NOT NULL AND auth_key NOT LIKE '${SEALED}%'`)
    .all() as Row[];
  const clearSecrets = db
    .prepare(`SELECT company_id, seq, secret FROM signing_secrets WHERE secret NOT LIKE '${SEALED}%'`)
    .all() as Row[];
  const outboxCopies = Number(
    (db.prepare('SELECT count(*) AS n FROM outbox WHERE auth_key IS NOT NULL').get() as Row).n,
  );
  const changed = clearKeys.length + clearSecrets.length + outboxCopies;
  if (changed === 0) return 0;
  // The portal takes each event's key hint (last four characters) from the outbox first.
  beforeDrop();
  db.pragma('secure_delete = ON');
  try {
    db.transaction(() => {
      const company = db.prepare('UPDATE companies SET auth_key = ? WHERE id = ?');
      for (const row of clearKeys)
        company.run(sealer.seal(String(row.auth_key), authKeyContext(Number(row.id))), row.id);
      const secret = db.prepare('UPDATE signing_secrets SET secret = ? WHERE company_id = ? AND seq = ?');
      for (const row of clearSecrets) {
        const context = signingSecretContext(Number(row.company_id), Number(row.seq));
        secret.run(sealer.seal(String(row.secret), context), row.company_id, row.seq);
      }
      db.prepare('UPDATE outbox SET auth_key = NULL WHERE auth_key IS NOT NULL').run();
    })();
    rewrite(db);
  } finally {
    db.pragma('secure_delete = OFF');
  }
  return changed;
}

/** Rewrites the file (VACUUM) and empties its WAL: nothing freed keeps an old value. */
export function rewrite(db: Database.Database): void {
  db.exec('VACUUM');
  if (db.name !== ':memory:') db.pragma('wal_checkpoint(TRUNCATE)');
}

/** Seals every value of `sandbox.db` again with the ring's first key; returns how many. */
export function resealValues(db: Database.Database, sealer: SecretSealer): number {
  const current = `${SEALED}${sealer.sealingKeyId}:`;
  const older = (column: string) => `${column} IS NOT NULL AND substr(${column}, 1, ${current.length}) <> ?`;
  let count = 0;
  db.pragma('secure_delete = ON');
  try {
    db.transaction(() => {
      const keys = db.prepare(`SELECT id, auth_key FROM companies WHERE ${older('auth_key')}`).all(current) as Row[];
      const company = db.prepare('UPDATE companies SET auth_key = ? WHERE id = ?');
      for (const row of keys) {
        const context = authKeyContext(Number(row.id));
        count += company.run(sealer.seal(sealer.open(String(row.auth_key), context), context), row.id).changes;
      }
      const secrets = db
        .prepare(`SELECT company_id, seq, secret FROM signing_secrets WHERE ${older('secret')}`)
        .all(current) as Row[];
      const secret = db.prepare('UPDATE signing_secrets SET secret = ? WHERE company_id = ? AND seq = ?');
      for (const row of secrets) {
        const context = signingSecretContext(Number(row.company_id), Number(row.seq));
        count += secret.run(
          sealer.seal(sealer.open(String(row.secret), context), context),
          row.company_id,
          row.seq,
        ).changes;
      }
    })();
    rewrite(db);
  } finally {
    db.pragma('secure_delete = OFF');
  }
  return count;
}
