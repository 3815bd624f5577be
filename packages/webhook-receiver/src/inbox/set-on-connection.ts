import type { InboxTransaction } from './types.js';

// Module-wide, not per inbox: two inboxes with different lock timeouts on one pool must see each
// other's settings. Weak, so a destroyed or ended connection takes its entry with it.
const held = /* @__PURE__ */ new WeakMap<object, Map<string, string>>();

/**
 * Runs a statement whose setting stays on the connection (MySQL's `SET SESSION …`) unless the
 * transaction's connection already holds it with the same parameters. A session setting is not
 * undone by a rollback, so it is recorded once the statement succeeds, whatever the transaction
 * then does. Without `tx.connection` the statement runs every time.
 */
export async function setOnConnection<Tx>(
  tx: InboxTransaction<Tx>,
  sql: string,
  params: readonly unknown[],
): Promise<void> {
  const { connection } = tx;
  if (connection === undefined) {
    await tx.query(sql, params);
    return;
  }
  const value = JSON.stringify(params);
  const settings = held.get(connection);
  if (settings?.get(sql) === value) return;
  await tx.query(sql, params);
  if (settings === undefined) held.set(connection, new Map([[sql, value]]));
  else settings.set(sql, value);
}
