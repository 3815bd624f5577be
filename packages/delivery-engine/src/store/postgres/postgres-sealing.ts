import { DeliveryEngineError } from '../../delivery-engine-error.js';
import { checkSealingKeys, type SealingKey } from '../../sealing/sealing-key.js';
import { createSecretSealer, SEALED_PREFIX, type SecretSealer } from '../../sealing/secret-sealer.js';
import type { TableNames } from '../schema.js';
import type { DeliveryClaim, NewDelivery, ResealResult, StoredCredentials } from '../store.js';
import {
  CLEAR_MARK,
  checkRegistry,
  clearCondition,
  keyCheckValue,
  openedCredentials,
  otherKeyCondition,
  type RegisteredKey,
  requireSealer,
  resealed,
  sealedValues,
} from '../stored-secrets.js';
import type { PgPool, PgPoolClient } from './pg-types.js';

type Row = Record<string, unknown>;
const BATCH = 500;
const WHERE = 'postgresDeliveryStore';
const FIX =
  'pass sealingKeys to postgresDeliveryStore (the same keys on every worker; the first seals), or give the engine a `credentials` hook and enqueue without the secret';

/** The Postgres store's sealed secrets: the operator's keys, checked at migrate, and re-sealing. */
export interface PostgresSealing {
  /** The sealed values of a new delivery; refuses a secret when the store has no key. */
  sealed(delivery: NewDelivery): { authKey: string | null; signingSecret: string | null };
  open(claim: DeliveryClaim): StoredCredentials;
  /**
   * After the migrations: refuses keys that do not match the ids the table has sealed with, and
   * seals what rows written before sealing hold in clear (refused without a key while any does).
   */
  ready(): Promise<void>;
  reseal(): Promise<ResealResult>;
}

export function postgresSealing(
  pool: PgPool,
  t: TableNames,
  lockName: string,
  keys: readonly SealingKey[] | undefined,
): PostgresSealing {
  if (keys !== undefined) checkSealingKeys(keys, `${WHERE}: sealingKeys`);
  const sealer: SecretSealer | undefined = keys === undefined ? undefined : createSecretSealer(keys);
  const both = (condition: (column: string) => string) =>
    `${condition('sealed_auth_key')} OR ${condition('sealed_signing_secret')}`;

  /** One transaction under the store's advisory lock (workers starting together take turns). */
  async function locked<T>(body: (client: PgPoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${lockName}:sealing`]);
      const result = await body(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (error instanceof DeliveryEngineError) throw error;
      throw new DeliveryEngineError('store_error', 'postgres store: sealing the stored secrets failed', {
        cause: error,
      });
    } finally {
      client.release();
    }
  }

  /** Seals again each row of `rows` with the current key, in one statement. */
  async function sealRows(client: PgPoolClient, seal: SecretSealer, rows: readonly Row[]): Promise<number> {
    const values = rows.map((row) => ({
      id: String(row.id),
      ...resealed(seal, {
        id: String(row.id),
        origin: String(row.origin),
        authKey: row.sealed_auth_key as string | null,
        signingSecret: row.sealed_signing_secret as string | null,
      }),
    }));
    const result = await client.query(
      `UPDATE ${t.deliveries} d SET sealed_auth_key = v.a, sealed_signing_secret = v.s
         FROM unnest($1::text[], $2::text[], $3::text[]) AS v(id, a, s) WHERE d.id = v.id`,
      [values.map((v) => v.id), values.map((v) => v.authKey), values.map((v) => v.signingSecret)],
    );
    return result.rowCount ?? 0;
  }

  // Re-sealing skips a row a worker is writing (the final check comes back for it); sealing the
  // clear values at an upgrade waits for it, since the mark that says they exist goes after.
  const batchOf = (client: PgPoolClient, condition: string, params: unknown[] = [], skipLocked = false) =>
    client.query(
      `SELECT id, origin, sealed_auth_key, sealed_signing_secret FROM ${t.deliveries}
        WHERE ${condition} LIMIT ${BATCH} FOR UPDATE${skipLocked ? ' SKIP LOCKED' : ''}`,
      params,
    );

  return {
    sealed: (delivery) => sealedValues(() => requireSealer(sealer, WHERE, FIX), delivery),
    open: (claim) => openedCredentials(sealer, claim),
    ready: () =>
      locked(async (client) => {
        const registered = (await client.query(`SELECT key_id, check_value FROM ${t.sealingKeys}`)).rows.map(
          (row): RegisteredKey => ({ keyId: String(row.key_id), checkValue: String(row.check_value) }),
        );
        const { registerSealingKey, clearMayRemain } = checkRegistry(registered, sealer, WHERE, FIX);
        if (registerSealingKey && sealer !== undefined) {
          await client.query(
            `INSERT INTO ${t.sealingKeys} (key_id, check_value, added_at) VALUES ($1, $2, $3) ON CONFLICT (key_id) DO NOTHING`,
            [sealer.sealingKeyId, keyCheckValue(sealer), Date.now()],
          );
        }
        if (!clearMayRemain) return;
        const clear = both(clearCondition);
        if (sealer === undefined) {
          const found = await client.query(`SELECT count(*)::int AS n FROM ${t.deliveries} WHERE ${clear}`);
          const n = Number(found.rows[0]?.n ?? 0);
          if (n > 0) {
            throw new DeliveryEngineError(
              'sealing_key_missing',
              `${WHERE}: ${n} deliveries written by an earlier release hold an Auth Key or a signing secret in clear, and no sealing key was given to seal them; ${FIX}`,
            );
          }
        } else {
          for (
            let rows = (await batchOf(client, clear)).rows;
            rows.length > 0;
            rows = (await batchOf(client, clear)).rows
          ) {
            await sealRows(client, sealer, rows);
          }
        }
        await client.query(`DELETE FROM ${t.sealingKeys} WHERE key_id = $1`, [CLEAR_MARK]);
      }),
    async reseal() {
      const seal = requireSealer(sealer, WHERE, FIX);
      const prefix = `${SEALED_PREFIX}${seal.sealingKeyId}:`;
      const older = both((column) => otherKeyCondition(column, '$1::text'));
      let count = 0;
      let retired: string[] | undefined;
      while (retired === undefined) {
        // Batches of their own: rows stay claimable, and a worker's result waits at most one batch.
        for (;;) {
          const done = await locked(async (client) => {
            const rows = (await batchOf(client, older, [prefix], true)).rows;
            count += rows.length === 0 ? 0 : await sealRows(client, seal, rows);
            return rows.length === 0;
          });
          if (done) break;
        }
        retired = await locked(async (client) => {
          const left = await client.query(`SELECT 1 FROM ${t.deliveries} WHERE ${older} LIMIT 1`, [prefix]);
          if (left.rows.length > 0) return undefined;
          const gone = await client.query(
            `DELETE FROM ${t.sealingKeys} WHERE key_id <> $1 AND key_id <> $2 RETURNING key_id`,
            [seal.sealingKeyId, CLEAR_MARK],
          );
          return gone.rows.map((row) => String(row.key_id));
        });
      }
      return { resealed: count, sealingKeyId: seal.sealingKeyId, retiredKeyIds: retired };
    },
  };
}
