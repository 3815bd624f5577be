/**
 * `pnpm bench:alternatives`: only the comparison with pg-boss and BullMQ (also part of `pnpm bench`).
 * Run under `flock /tmp/kyc-bench.lock` (the script does).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { compareAlternatives } from './alternatives.js';
import { benchHeader } from './bench-header.js';
import { startBenchReceiver } from './receiver.js';

const tls = await createTestCertificate();
const dir = mkdtempSync(join(tmpdir(), 'kyc-bench-alt-'));
const receiver = await startBenchReceiver(tls);
try {
  console.log(benchHeader('@kyc/delivery-engine alternatives'));
  await compareAlternatives({
    url: receiver.url,
    received: () => receiver.count(),
    tls,
    body: JSON.stringify({ ...sampleStatusWebhook, sessionId: 'bench' }),
    dir,
    events: Number(process.env.KYC_BENCH_EVENTS ?? 10_000) / 2,
    concurrency: 16,
    latencySamples: Number(process.env.KYC_BENCH_LATENCY_SAMPLES ?? 1000),
    rounds: Number(process.env.KYC_BENCH_ROUNDS ?? 3),
  });
} finally {
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
