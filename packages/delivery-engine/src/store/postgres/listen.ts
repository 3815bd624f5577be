import { DeliveryEngineError } from '../../delivery-engine-error.js';
import type { PgPool, PgPoolClient } from './pg-types.js';

/** First wait before listening again after the LISTEN connection broke; doubles up to the maximum. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 30_000;

/** The event side of a `pg` client. Not in `PgPoolClient`: pg's generic `on` defeats structural typing. */
interface EventSource {
  on(event: 'notification', listener: (message: { channel?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: () => void): unknown;
}

function events(client: PgPoolClient): EventSource {
  const candidate = client as unknown as Partial<EventSource>;
  if (typeof candidate.on !== 'function') {
    throw new DeliveryEngineError('invalid_option', 'postgresDeliveryStore: pool clients must emit events (a pg.Pool)');
  }
  return candidate as EventSource;
}

/**
 * Holds one pooled connection in `LISTEN channel` and calls `listener` on each notification.
 * When that connection breaks (a failover, an idle-session timeout, a terminated backend) it is
 * thrown away, never returned to the pool, and a new one listens after a growing pause; the
 * listener is then called once, since notifications sent in between were missed. The engine
 * polls every `pollIntervalMs` meanwhile, so a broken connection costs latency, never work.
 */
export async function listen(pool: PgPool, channel: string, listener: () => void): Promise<() => Promise<void>> {
  let closed = false;
  let current: { readonly client: PgPoolClient; give(destroy: boolean): void } | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let pauseMs = RETRY_MIN_MS;

  const connect = async (): Promise<void> => {
    const client = await pool.connect();
    // pg emits `error` and then `end` for one failure, and `end` again when the pool closes a
    // client we already gave back: release exactly once.
    let released = false;
    const give = (destroy: boolean) => {
      if (released) return;
      released = true;
      if (current?.client === client) current = undefined;
      client.release(destroy);
    };
    const drop = () => {
      if (released) return;
      give(true);
      schedule();
    };
    try {
      const source = events(client);
      source.on('notification', (message) => {
        if (message.channel === channel) listener();
      });
      source.on('error', drop);
      source.on('end', drop);
      await client.query(`LISTEN "${channel}"`);
    } catch (error) {
      give(true);
      throw error;
    }
    if (released) throw new Error('the LISTEN connection closed while it was being set up');
    if (closed) {
      give(true);
      return;
    }
    current = { client, give };
    pauseMs = RETRY_MIN_MS;
  };

  function schedule(): void {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        () => listener(),
        () => {
          pauseMs = Math.min(pauseMs * 2, RETRY_MAX_MS);
          schedule();
        },
      );
    }, pauseMs);
    // Reconnecting must not keep a process alive that has nothing else to do.
    retry.unref?.();
  }

  try {
    await connect();
  } catch (error) {
    // The caller gets the error and no handle to stop a retry with: schedule none.
    closed = true;
    if (retry !== undefined) clearTimeout(retry);
    if (error instanceof DeliveryEngineError) throw error;
    throw new DeliveryEngineError('store_error', 'postgres store: LISTEN failed', { cause: error });
  }
  return async () => {
    closed = true;
    if (retry !== undefined) clearTimeout(retry);
    retry = undefined;
    const held = current;
    current = undefined;
    if (held === undefined) return;
    try {
      await held.client.query(`UNLISTEN "${channel}"`);
      held.give(false);
    } catch {
      held.give(true);
    }
  };
}
