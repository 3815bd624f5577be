// The structural `pg` types live below both the store and its LISTEN helper, so neither imports the other.

/** What a query resolves with (the part the store reads). */
export interface PgResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** A query by name: `pg` parses and plans it once per connection, then only binds and runs it. */
export interface PgNamedQuery {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

/** The part of a `pg` client, pool client or pool the store uses (structural: `pg` stays an optional peer). */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<PgResult>;
  query(query: PgNamedQuery): Promise<PgResult>;
}

/** A checked-out `pg` client, as `pool.connect()` returns it. */
export interface PgPoolClient extends PgQueryable {
  release(error?: Error | boolean): void;
}

/** A `pg.Pool` (or anything shaped like one). */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
}
