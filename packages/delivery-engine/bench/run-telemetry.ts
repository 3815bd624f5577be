/**
 * `pnpm bench:telemetry`: only issue 11's comparison (OpenTelemetry absent, API without SDK,
 * SDK registered), also part of `pnpm bench`. Run under `flock /tmp/kyc-bench.lock` (the
 * script does). KYC_BENCH_EVENTS and KYC_BENCH_ROUNDS size it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { benchHeader } from './bench-header.js';
import { startBenchReceiver } from './receiver.js';
import { compareTelemetry } from './telemetry.js';

const tls = await createTestCertificate();
const dir = mkdtempSync(join(tmpdir(), 'kyc-bench-otel-'));
const receiver = await startBenchReceiver(tls);
const events = Number(process.env.KYC_BENCH_EVENTS ?? 5000);
const rounds = Number(process.env.KYC_BENCH_ROUNDS ?? 5);
try {
  console.log(benchHeader('@kyc/delivery-engine telemetry'));
  console.log(`SQLite deliveries/s, 16 in flight, ${events} deliveries per run, ${rounds} interleaved rounds`);
  await compareTelemetry({
    url: receiver.url,
    ca: tls.cert,
    body: JSON.stringify({ ...sampleStatusWebhook, sessionId: 'bench' }),
    dir,
    events,
    concurrency: 16,
    rounds,
  });
} finally {
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
