import { inboxExampleSuite, POSTGRES_URL, postgresAvailable, receiverExampleSuite } from '@kyc/test-support';
import pg from 'pg';
import { beforeAll, describe } from 'vitest';
import { createInboxApp, type InboxAppOptions, migrate } from './server-inbox.js';

// A schema of its own, so the example's unqualified `accounts` and inbox tables meet no other test's;
// made afresh per run, since the inbox keeps the keys of the fixed events the shared suite sends.
const SCHEMA = 'example_fastify_inbox';

async function freshSchema(): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
  await admin.end();
}

async function start(options: Omit<InboxAppOptions, 'pool'>) {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, options: `-c search_path=${SCHEMA}` });
  await migrate(pool);
  const app = await createInboxApp({ ...options, pool });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `${address}/webhooks/kyc`,
    query: async (text: string, params: readonly unknown[] = []) => (await pool.query(text, [...params])).rows,
    close: async () => {
      await app.close();
      await pool.end();
    },
  };
}

describe.skipIf(!(await postgresAvailable()))('fastify-receiver, inbox variant on Postgres (real server)', () => {
  beforeAll(freshSchema);
  inboxExampleSuite('fastify-inbox', ({ authKey, onDecision }) => start({ authKeys: authKey, onDecision }));
  // Everything the plain example shows holds in inbox mode too.
  receiverExampleSuite(
    'fastify-inbox',
    ({ authKey, signingSecrets, onDecision }) =>
      start({ authKeys: authKey, ...(signingSecrets && { signingSecrets }), onDecision }),
    { signing: true },
  );
});
