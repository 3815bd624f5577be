import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { POSTGRES_URL } from '@kyc/test-support';
import type pg from 'pg';

/** The pg_dump of this machine: Debian's wrapper, or a version's own binary. */
function pgDumpBinary(): string {
  if (existsSync('/usr/bin/pg_dump')) return '/usr/bin/pg_dump';
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const binary = `${root}/${version}/bin/pg_dump`;
    if (existsSync(binary)) return binary;
  }
  throw new Error(
    'pg_dump not found (/usr/bin/pg_dump or /usr/lib/postgresql/*/bin/pg_dump): apt-get install postgresql-client',
  );
}

/** A plain-text `pg_dump` of one schema: the backup handed to support. */
export function pgDumpOf(schema: string): string {
  return execFileSync(pgDumpBinary(), ['--dbname', POSTGRES_URL, '--schema', schema, '--no-owner'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
}

/**
 * The bytes of every table, index and TOAST file of a schema as the server keeps them on disk
 * (after a CHECKPOINT wrote its buffers out), read through `pg_read_binary_file` (superuser).
 */
export async function relationFilesOf(pool: pg.Pool, schema: string): Promise<Record<string, Buffer>> {
  await pool.query('CHECKPOINT');
  const { rows } = await pool.query(
    `SELECT c.relname, pg_relation_filepath(c.oid) AS path
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND pg_relation_filepath(c.oid) IS NOT NULL
     UNION ALL
     SELECT t.relname, pg_relation_filepath(t.oid)
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_class t ON t.oid = c.reltoastrelid
      WHERE n.nspname = $1`,
    [schema],
  );
  const files: Record<string, Buffer> = {};
  for (const row of rows) {
    const { rows: read } = await pool.query('SELECT pg_read_binary_file($1, 0, 268435456, true) AS bytes', [row.path]);
    const bytes = read[0]?.bytes as Buffer | null;
    if (bytes !== null && bytes !== undefined) files[`${schema}.${row.relname} (${row.path})`] = bytes;
  }
  return files;
}

/** The server's write-ahead log written since `since` (an LSN), segment by segment. */
export async function walSince(pool: pg.Pool, since: string): Promise<Record<string, Buffer>> {
  const { rows } = await pool.query(
    `SELECT name FROM pg_ls_waldir()
      WHERE name >= pg_walfile_name($1::pg_lsn) AND name <= pg_walfile_name(pg_current_wal_lsn()) AND length(name) = 24
      ORDER BY name`,
    [since],
  );
  const segments: Record<string, Buffer> = {};
  for (const { name } of rows) {
    const { rows: read } = await pool.query('SELECT pg_read_binary_file($1, 0, 268435456, true) AS bytes', [
      `pg_wal/${name}`,
    ]);
    const bytes = read[0]?.bytes as Buffer | null;
    if (bytes !== null && bytes !== undefined) segments[`pg_wal/${name}`] = bytes;
  }
  return segments;
}
