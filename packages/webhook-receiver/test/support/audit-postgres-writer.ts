/**
 * One receiver process of the multi-process audit test: argv = connection string, table,
 * worker number, deliveries. Sends its deliveries concurrently, exits 0 when all got 200.
 */
import { sampleStatusWebhook } from '@kyc/contracts';
import pg from 'pg';
import { auditTrail } from '../../src/audit.js';
import { createWebhookReceiver } from '../../src/index.js';
import { postgresAuditSink } from '../../src/postgres.js';
import { createTestRequest } from '../../src/testing.js';
import { AUTH_KEY } from './receiver-table.js';

const [url, tableName, worker, count] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 4 });
try {
  const receiver = createWebhookReceiver({
    authKeys: AUTH_KEY,
    onEvent: () => undefined,
    logger: {},
    audit: auditTrail({ sink: postgresAuditSink(pool, { tableName: tableName as string }), timeoutMs: 30_000 }),
  });
  const statuses = await Promise.all(
    Array.from({ length: Number(count) }, (_, index) =>
      receiver
        .handle(
          createTestRequest({ payload: sampleStatusWebhook, authKey: AUTH_KEY, webhookId: `evt_p${worker}_${index}` }),
        )
        .then((response) => response.status),
    ),
  );
  if (statuses.some((status) => status !== 200)) {
    console.error(`worker ${worker}: statuses ${statuses.join(',')}`);
    process.exitCode = 1;
  }
} finally {
  await pool.end();
}
