/**
 * One SQLite engine run against the bench's receiver process, with the enqueue phase and the
 * delivery phase profiled apart: `node --import tsx bench/profile-run.ts <dir>` (after `pnpm bench:build`: the engine runs from `dist`)
 * writes `<dir>/enqueue.cpuprofile` and `<dir>/deliver.cpuprofile`; `node bench/top-frames.mjs <file>`
 * lists their hottest functions. Prints deliveries/s and this process's CPU µs per operation.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { sqliteThroughput } from './sqlite-throughput.js';

const EVENTS = Number(process.env.KYC_BENCH_EVENTS ?? 20_000);
const out = process.argv[2];
const tls = await createTestCertificate();
const body = JSON.stringify({ ...sampleStatusWebhook, sessionId: 'bench' });
const receiver: ChildProcess = fork(fileURLToPath(new URL('./receiver-process.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx', '--conditions=@kyc/source'],
  env: { ...process.env, KYC_BENCH_TLS: JSON.stringify(tls) },
});
const [{ port }] = (await once(receiver, 'message')) as [{ port: number }];
const dir = mkdtempSync(join(tmpdir(), 'kyc-profile-'));
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
const observe = async (phase: string) => {
  if (out === undefined) return async () => undefined;
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${phase}.cpuprofile`), JSON.stringify(profile));
  };
};
try {
  const url = `https://127.0.0.1:${port}/hook`;
  const run = { url, ca: tls.cert, body, concurrency: 16 };
  const path = (name: string) => (process.env.KYC_PROFILE_MEMORY === '1' ? ':memory:' : join(dir, name));
  for (let i = 0; i < 2; i++) await sqliteThroughput({ ...run, path: path(`warm-${i}.db`), events: 5000 });
  console.log(JSON.stringify(await sqliteThroughput({ ...run, path: path('run.db'), events: EVENTS, observe })));
} finally {
  receiver.send('exit');
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
