import type { InboxQueryResult } from '../types.js';

/** The part of a `pg` `Connection` a batch writes to: the extended-protocol messages. */
interface PgWire {
  readonly stream: { cork?(): void; uncork?(): void };
  /** node-postgres's record of the named statements this connection's server has parsed. */
  readonly parsedStatements?: Record<string, string | undefined>;
  parse(message: { text: string; name?: string }): void;
  bind(message: { statement?: string; values?: readonly (string | null)[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: object): void;
  sync(): void;
}

/** A `pg` `Client` whose connection a batch can be written to (not a pipelined or native one). */
export interface BatchableClient {
  readonly connection: PgWire;
  query(submittable: object): unknown;
}

/** Whether `client` is node-postgres's own `Client`, with the wire a batch needs. */
export function isBatchable(client: object): client is BatchableClient {
  const { connection, pipeline } = client as { connection?: Partial<PgWire>; pipeline?: unknown };
  // A pipelined client refuses custom submittables; the native one has no such connection.
  return pipeline !== true && typeof connection?.parse === 'function' && typeof connection.sync === 'function';
}

type Callback = (error: Error | null, result?: InboxQueryResult) => void;

/** Names already computed: an inbox has one opening statement, hashed once rather than per delivery. */
const preparedNames = /* @__PURE__ */ new Map<string, string>();

/**
 * The name a statement is prepared under: its text's FNV-1a hash, so two inboxes (two tables)
 * on one connection never share a name, and two copies of this package agree on it.
 */
export function preparedName(text: string): string {
  const known = preparedNames.get(text);
  if (known !== undefined) return known;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  const name = `kyc_inbox_${(hash >>> 0).toString(16).padStart(8, '0')}_${text.length}`;
  if (preparedNames.size < 256) preparedNames.set(text, name);
  return name;
}

/**
 * `BEGIN` and one statement written in one go, ending in a single Sync, so the server answers
 * both in one round trip: node-postgres sends each `query()` only after the previous one's
 * answer. A "submittable" is node-postgres's documented hook for custom queries (pg-cursor is
 * one); the client calls the `handle…` methods below with the server's messages. If BEGIN or
 * the statement fails, the server skips the rest up to the Sync, and the error ends the batch.
 * The answer is in text format: values arrive as strings (or `null`).
 */
class BeginBatch {
  private names: string[] = [];
  private readonly rows: Record<string, unknown>[] = [];

  constructor(
    // `name` and `text`, as on pg's own named queries: the client records a named statement in
    // `connection.parsedStatements` when the server answers ParseComplete, and keeps that record.
    readonly text: string,
    readonly name: string | undefined,
    private readonly values: readonly (string | null)[],
    // Named `callback`, as pg's own queries: the client wraps it for `query_timeout`.
    public callback: Callback,
  ) {}

  submit(wire: PgWire): void {
    const { name, text } = this;
    wire.stream.cork?.();
    try {
      // The named statement is parsed first, once per connection: the client records it at the
      // first ParseComplete of the batch, which must be its own (a failed parse records nothing).
      if (name !== undefined && wire.parsedStatements?.[name] !== text) wire.parse({ text, name });
      wire.parse({ text: 'BEGIN' });
      wire.bind({});
      wire.execute({});
      if (name === undefined) wire.parse({ text });
      wire.bind({ ...(name !== undefined && { statement: name }), values: this.values });
      wire.describe({ type: 'P', name: '' });
      wire.execute({});
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
  }

  handleRowDescription(message: { fields: { name: string }[] }): void {
    this.names = message.fields.map((field) => field.name);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < this.names.length; i++) row[this.names[i] as string] = message.fields[i];
    this.rows.push(row);
  }

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {}

  handleError(error: Error): void {
    const callback = this.callback;
    this.callback = () => undefined;
    callback(error);
  }

  handleReadyForQuery(): void {
    this.callback(null, { rows: this.rows, affected: this.rows.length });
  }
}

/**
 * Sends `BEGIN` and `text` in one round trip; resolves with the statement's rows. With `prepared`,
 * `text` is a named statement, parsed and planned by the server once per connection instead of
 * at every delivery (measured: a quarter of the database's CPU per delivery).
 */
export function beginBatch(
  client: BatchableClient,
  text: string,
  params: readonly unknown[],
  prepared: boolean,
): Promise<InboxQueryResult> {
  // Text-format parameters, as pg's own Query sends strings and numbers.
  const values = params.map((value) => (value === null || value === undefined ? null : String(value)));
  return new Promise((resolve, reject) => {
    client.query(
      new BeginBatch(text, prepared ? preparedName(text) : undefined, values, (error, result) =>
        error ? reject(error) : resolve(result as InboxQueryResult),
      ),
    );
  });
}
