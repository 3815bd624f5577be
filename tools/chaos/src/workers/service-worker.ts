/**
 * The service side of the Postgres scenario, in its own process so the suite can kill it in the
 * middle of finishing a session: in a loop, one transaction inserts a finished session and
 * enqueues its webhook (the outbox). Prints `started` once it runs, `ack <id>` after each
 * commit and `refused <id>` when a transaction failed (Postgres down). The parent kills it
 * with SIGKILL at random moments; it never exits on its own.
 */
import { createDeliveryEngine } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';
import { CHAOS_SEALING_KEYS } from '../support/sealing-keys.js';

interface ServiceConfig {
  readonly postgresUrl: string;
  /** The receiver's origin: every fifth session's webhook goes to `<url>/fail` (always 500). */
  readonly url: string;
  readonly authKey: string;
  /** Session ids are `<prefix>-<n>`: one prefix per process life, so ids never repeat. */
  readonly prefix: string;
  /** `enqueue-after-commit`: the broken build, which commits the session and then queues its webhook. */
  readonly breakWith?: string;
}

const config = JSON.parse(process.env.KYC_CHAOS ?? '{}') as ServiceConfig;
const say = (line: string) => process.stdout.write(`${line}\n`);
const pool = new pg.Pool({ connectionString: config.postgresUrl, max: 2, connectionTimeoutMillis: 3000 });
// Postgres is stopped during the run: a lost idle connection must not end the process.
pool.on('error', () => undefined);
// Only enqueues, never started. Lookups answer loopback: the URL is the suite's own receiver.
const service = createDeliveryEngine({
  store: postgresDeliveryStore({ pool, sealingKeys: CHAOS_SEALING_KEYS }),
  allowPrivateNetworks: ['127.0.0.0/8'],
  resolver: { resolve: async () => [{ address: '127.0.0.1', family: 4 as const }] },
});
const ignore = () => undefined;

say('started');
for (let n = 0; ; n++) {
  const id = `${config.prefix}-${n}`;
  const event = {
    id,
    url: n % 5 === 0 ? `${config.url}/fail` : `${config.url}/hook`,
    authKey: config.authKey,
    body: JSON.stringify({ sessionId: id, status: 'APPROVED' }),
  };
  const client = await pool.connect().catch(() => undefined);
  if (client === undefined) {
    say(`refused ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    continue;
  }
  // A checked-out client whose server dies emits 'error' between queries; the next query fails anyway.
  client.on('error', ignore);
  let broken = false;
  try {
    await client.query('BEGIN');
    await client.query("INSERT INTO sessions (id, state) VALUES ($1, 'FINISHED')", [id]);
    if (config.breakWith === 'enqueue-after-commit') {
      // The broken build: the gap other engines have, the webhook queued after the commit.
      await client.query('COMMIT');
      await service.enqueue(event);
    } else {
      await service.enqueue(event, { transaction: client });
      await client.query('COMMIT');
    }
    say(`ack ${id}`);
  } catch {
    broken = true;
    say(`refused ${id}`);
    await client.query('ROLLBACK').catch(ignore);
  } finally {
    client.off('error', ignore);
    // A client that saw an error may be dead: drop it rather than return it to the pool.
    client.release(broken);
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
}
