// The structural `pg` types live below both the store and its LISTEN helper, so neither imports the other.

/** The part of a `pg` client, pool client or pool the store uses (structural: `pg` stays an optional peer). */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

/** A checked-out `pg` client, as `pool.connect()` returns it. */
export interface PgPoolClient extends PgQueryable {
  release(error?: Error | boolean): void;
}

/** A `pg.Pool` (or anything shaped like one). */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
}
