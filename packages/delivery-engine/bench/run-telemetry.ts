/**
 * `pnpm bench:telemetry`: only issue 11's comparison (OpenTelemetry absent, API without SDK,
 * SDK registered), also part of `pnpm bench`. Run under `flock /tmp/kyc-bench.lock` (the
 * script does). KYC_BENCH_EVENTS and KYC_BENCH_ROUNDS size it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { benchHeader } from './bench-header.js';
import { compareTelemetry } from './telemetry.js';

const tls = await createTestCertificate();
const dir = mkdtempSync(join(tmpdir(), 'kyc-bench-otel-'));
const receiver: ChildProcess = fork(fileURLToPath(new URL('./receiver-process.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx', '--conditions=@kyc/source'],
  env: { ...process.env, KYC_BENCH_TLS: JSON.stringify(tls) },
});
const [{ port }] = (await once(receiver, 'message')) as [{ port: number }];
const events = Number(process.env.KYC_BENCH_EVENTS ?? 5000);
const rounds = Number(process.env.KYC_BENCH_ROUNDS ?? 5);
try {
  console.log(benchHeader('@kyc/delivery-engine telemetry'));
  console.log(`SQLite deliveries/s, 16 in flight, ${events} deliveries per run, ${rounds} interleaved rounds`);
  await compareTelemetry({
    url: `https://127.0.0.1:${port}/hook`,
    ca: tls.cert,
    body: JSON.stringify({ ...sampleStatusWebhook, sessionId: 'bench' }),
    dir,
    events,
    concurrency: 16,
    rounds,
  });
} finally {
  receiver.send('exit');
  rmSync(dir, { recursive: true, force: true });
}
