import { DeliveryEngineError } from '../../delivery-engine-error.js';
import { migrationsTable, pendingMigrations, type TableNames } from '../schema.js';
import type { PgPool } from './pg-types.js';

/**
 * Applies the pending numbered migrations in one transaction, under an advisory lock: workers
 * starting together would otherwise race on `CREATE … IF NOT EXISTS`.
 */
export async function migratePostgres(
  pool: PgPool,
  t: TableNames,
  lockName: string,
  schema: string | undefined,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockName]);
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(migrationsTable(t));
    const applied = await client.query(`SELECT version FROM ${t.migrations}`);
    for (const migration of pendingMigrations(applied.rows.map((row) => Number(row.version)))) {
      for (const statement of migration.postgres(t)) await client.query(statement);
      await client.query(`INSERT INTO ${t.migrations} (version, description, applied_at) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.description,
        Date.now(),
      ]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (error instanceof DeliveryEngineError) throw error;
    throw new DeliveryEngineError('store_error', 'postgres store: migration failed', { cause: error });
  } finally {
    client.release();
  }
}
