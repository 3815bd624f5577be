import type { InboxTransaction } from './types.js';

/**
 * What each connection holds, process-wide: not per inbox (two inboxes with different lock
 * timeouts on one pool must see each other's settings) and not per module instance either. Two
 * copies of this package in one process (two `node_modules` trees) on one pool would each keep
 * their own memory, and one would skip a SET the other had changed since; `Symbol.for` names one
 * slot on `globalThis` that every copy finds. Weak, so an ended connection takes its entry along.
 */
const REGISTRY = Symbol.for('@kyc/webhook-receiver/session-settings');

type Held = WeakMap<object, Map<string, string>>;

function heldSettings(): Held {
  const holder = globalThis as { [REGISTRY]?: Held };
  holder[REGISTRY] ??= new WeakMap();
  return holder[REGISTRY];
}

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
  const held = heldSettings();
  const settings = held.get(connection);
  if (settings?.get(sql) === value) return;
  await tx.query(sql, params);
  if (settings === undefined) held.set(connection, new Map([[sql, value]]));
  else settings.set(sql, value);
}
