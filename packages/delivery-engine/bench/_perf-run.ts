import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { startBenchReceiver } from './receiver.js';
import { sqliteThroughput } from './sqlite-throughput.js';

const tls = await createTestCertificate();
const body = JSON.stringify({ ...sampleStatusWebhook, sessionId: 'bench' });
const receiver = await startBenchReceiver(tls);
const dir = mkdtempSync(join(tmpdir(), 'kyc-perf-'));
for (let i = 0; i < 3; i++)
  await sqliteThroughput({
    url: receiver.url,
    ca: tls.cert,
    body,
    path: join(dir, `w${i}.db`),
    events: 5000,
    concurrency: 16,
  });
const r = await sqliteThroughput({
  url: receiver.url,
  ca: tls.cert,
  body,
  path: join(dir, 'run.db'),
  events: 40000,
  concurrency: 16,
  observe: async (phase) => {
    if (phase === 'deliver') console.log('PERF-START', process.pid);
    await new Promise((res) => setTimeout(res, phase === 'deliver' ? 1000 : 0));
    return async () => {
      if (phase === 'deliver') console.log('PERF-END');
    };
  },
});
console.log(JSON.stringify(r));
receiver.close();
process.exit(0);
