/**
 * `pnpm bench:alternatives`: only the comparison with pg-boss and BullMQ (also part of `pnpm bench`).
 * Run under `flock /tmp/kyc-bench.lock` (the script does).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { compareAlternatives } from './alternatives.js';
import { benchHeader } from './bench-header.js';

const tls = await createTestCertificate();
const dir = mkdtempSync(join(tmpdir(), 'kyc-bench-alt-'));
const receiver: ChildProcess = fork(fileURLToPath(new URL('./receiver-process.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx', '--conditions=@kyc/source'],
  env: { ...process.env, KYC_BENCH_TLS: JSON.stringify(tls) },
});
const [{ port }] = (await once(receiver, 'message')) as [{ port: number }];
const received = async () => {
  receiver.send('count');
  const [{ count }] = (await once(receiver, 'message')) as [{ count: number }];
  return count;
};
try {
  console.log(benchHeader('@kyc/delivery-engine alternatives'));
  await compareAlternatives({
    url: `https://127.0.0.1:${port}/hook`,
    received,
    tls,
    body: JSON.stringify({ ...sampleStatusWebhook, sessionId: 'bench' }),
    dir,
    events: Number(process.env.KYC_BENCH_EVENTS ?? 10_000) / 2,
    concurrency: 16,
    latencySamples: Number(process.env.KYC_BENCH_LATENCY_SAMPLES ?? 200),
    rounds: Number(process.env.KYC_BENCH_ROUNDS ?? 3),
  });
} finally {
  receiver.send('exit');
  rmSync(dir, { recursive: true, force: true });
}
