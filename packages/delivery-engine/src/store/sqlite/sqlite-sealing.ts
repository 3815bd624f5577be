import { DeliveryEngineError } from '../../delivery-engine-error.js';
import { loadSealingKeys } from '../../sealing/key-file.js';
import { generateSealingKey, type SealingKey } from '../../sealing/sealing-key.js';
import { createSecretSealer, SEALED_PREFIX, type SecretSealer } from '../../sealing/secret-sealer.js';
import type { DeliveryClaim, NewDelivery, ResealResult, StoredCredentials } from '../store.js';
import {
  CLEAR_MARK,
  checkRegistry,
  clearCondition,
  keyCheckValue,
  openedCredentials,
  type RegisteredKey,
  resealed,
  sealedValues,
} from '../stored-secrets.js';
import type { SqliteFile } from './open-sqlite.js';

/** Where the SQLite store's sealing keys come from. */
export interface SqliteSealingOptions {
  /** Keys given by the operator; the first seals. */
  readonly keys: readonly SealingKey[] | undefined;
  /** Otherwise this key file, made at the first start (`undefined` for `:memory:`: a key for the process). */
  readonly keyFile: string | undefined;
}

type Row = Record<string, unknown>;
const BATCH = 500;
const TRUNCATE_TRIES = 50;

/** The SQLite store's sealed secrets: keys checked at the first write, values sealed and opened, re-sealing. */
export interface SqliteSealing {
  /**
   * Runs at the owner's first write (and again until it has succeeded): refuses keys that do not
   * match the ids the file has sealed with, and seals what rows written before sealing hold in
   * clear, then rewrites the file and empties its WAL so no clear copy is left in either.
   */
  ready(): void;
  sealed(delivery: NewDelivery): { authKey: string | null; signingSecret: string | null };
  open(claim: DeliveryClaim): StoredCredentials;
  /** Seals every value again with the current key, each batch through `write` (a group commit). */
  reseal(write: <T>(body: () => T) => Promise<T>): Promise<ResealResult>;
}

export function sqliteSealing({ db, t, path }: SqliteFile, options: SqliteSealingOptions): SqliteSealing {
  const where = `sqliteDeliveryStore (${path})`;
  const fix =
    options.keys === undefined && options.keyFile !== undefined
      ? `its key file ${options.keyFile} is missing or holds other keys: restore it, or pass sealingKeys`
      : 'add it to sealingKeys (the first key seals, every key given opens)';
  let sealer: SecretSealer | undefined;
  let done = false;
  let walToTruncate = false;

  const registry = () =>
    (db.prepare(`SELECT key_id, check_value FROM ${t.sealingKeys}`).all() as Row[]).map(
      (row): RegisteredKey => ({ keyId: String(row.key_id), checkValue: String(row.check_value) }),
    );

  const keyRing = (registered: readonly RegisteredKey[]): SecretSealer => {
    if (sealer !== undefined) return sealer;
    if (options.keys !== undefined || options.keyFile === undefined) {
      sealer = createSecretSealer(options.keys ?? [generateSealingKey()]);
      return sealer;
    }
    const needed = registered.find((key) => key.keyId !== CLEAR_MARK);
    try {
      // A new key only for a file that has sealed nothing yet: one that has needs its own.
      sealer = createSecretSealer(loadSealingKeys(options.keyFile, { create: needed === undefined }));
    } catch (error) {
      if (needed === undefined) throw error;
      throw new DeliveryEngineError(
        'sealing_key_missing',
        `${where}: the store holds secrets sealed with key id "${needed.keyId}", and its key file ${options.keyFile} cannot be read; restore it, or pass sealingKeys`,
        { cause: error },
      );
    }
    return sealer;
  };

  const current = () => sealer ?? keyRing(registry());

  /** Empties the WAL, whose old frames may hold pages from before the rewrite (a reader can delay it). */
  const truncateWal = () => {
    if (path === ':memory:') return;
    for (let i = 0; i < TRUNCATE_TRIES; i++) {
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (result?.busy === 0) {
        walToTruncate = false;
        return;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
    walToTruncate = true;
  };

  /** Rewrites the whole file (no freed page or cell keeps an old value), then empties the WAL. */
  const rewrite = () => {
    db.exec('VACUUM');
    truncateWal();
  };

  const updateRow = db.prepare(
    `UPDATE ${t.deliveries} SET sealed_auth_key = ?, sealed_signing_secret = ?
      WHERE rowid = ? AND sealed_auth_key IS ? AND sealed_signing_secret IS ?`,
  );
  const rowsWhere = (condition: string) =>
    db.prepare(
      `SELECT rowid AS rid, id, origin, sealed_auth_key, sealed_signing_secret FROM ${t.deliveries} WHERE ${condition} LIMIT ${BATCH}`,
    );
  const sealRows = (seal: SecretSealer, rows: readonly Row[]): number => {
    let changed = 0;
    for (const row of rows) {
      const before = {
        authKey: row.sealed_auth_key as string | null,
        signingSecret: row.sealed_signing_secret as string | null,
      };
      const after = resealed(seal, { id: String(row.id), origin: String(row.origin), ...before });
      changed += updateRow.run(
        after.authKey,
        after.signingSecret,
        row.rid,
        before.authKey,
        before.signingSecret,
      ).changes;
    }
    return changed;
  };

  return {
    ready() {
      if (done) {
        if (walToTruncate) truncateWal();
        return;
      }
      const registered = registry();
      const seal = keyRing(registered);
      const { registerSealingKey, clearMayRemain } = checkRegistry(registered, seal, where, fix);
      let sealedRows = 0;
      if (registerSealingKey || clearMayRemain) {
        const clearRows = rowsWhere(
          `${clearCondition('sealed_auth_key')} OR ${clearCondition('sealed_signing_secret')}`,
        );
        // Overwritten cells are zeroed from here to the rewrite: the clear values leave no copy in a page.
        db.pragma('secure_delete = ON');
        try {
          db.transaction(() => {
            if (registerSealingKey) {
              db.prepare(`INSERT INTO ${t.sealingKeys} (key_id, check_value, added_at) VALUES (?, ?, ?)`).run(
                seal.sealingKeyId,
                keyCheckValue(seal),
                Date.now(),
              );
            }
            if (!clearMayRemain) return;
            for (let rows = clearRows.all() as Row[]; rows.length > 0; rows = clearRows.all() as Row[]) {
              sealedRows += sealRows(seal, rows);
            }
            db.prepare(`DELETE FROM ${t.sealingKeys} WHERE key_id = ?`).run(CLEAR_MARK);
          }).immediate();
          if (sealedRows > 0) rewrite();
        } finally {
          db.pragma('secure_delete = OFF');
        }
      }
      done = true;
    },
    sealed: (delivery) => sealedValues(current, delivery),
    open: (claim) => openedCredentials(current(), claim),
    async reseal(write) {
      const seal = current();
      const prefix = `${SEALED_PREFIX}${seal.sealingKeyId}:`;
      const other = (column: string) =>
        `(${column} IS NOT NULL AND substr(${column}, 1, ${prefix.length}) <> '${prefix}')`;
      const older = rowsWhere(`${other('sealed_auth_key')} OR ${other('sealed_signing_secret')}`);
      let count = 0;
      let retired: string[] | undefined;
      while (retired === undefined) {
        for (let rows = older.all() as Row[]; rows.length > 0; rows = older.all() as Row[]) {
          count += await write(() => sealRows(seal, rows));
        }
        // The ids no value uses any more leave the registry in the commit that finds none left.
        retired = await write(() => {
          if (older.all().length > 0) return undefined;
          const ids = registry()
            .map((key) => key.keyId)
            .filter((id) => id !== seal.sealingKeyId && id !== CLEAR_MARK);
          for (const id of ids) db.prepare(`DELETE FROM ${t.sealingKeys} WHERE key_id = ?`).run(id);
          return ids;
        });
      }
      if (count > 0 || retired.length > 0) {
        db.pragma('secure_delete = ON');
        try {
          rewrite();
        } finally {
          db.pragma('secure_delete = OFF');
        }
      }
      return { resealed: count, sealingKeyId: seal.sealingKeyId, retiredKeyIds: retired };
    },
  };
}
