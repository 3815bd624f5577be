/**
 * `pnpm bench` (issue 20): the engine beside the bare undici ceiling and the senders a team
 * would build instead, on SQLite and on Postgres, in interleaved rounds with medians, ranges and
 * CPU per operation; idle latency; memory with 100 000 waiting deliveries. Every loop is bounded.
 * Run under `flock /tmp/kyc-bench.lock` (the package script does) on a machine with nothing else
 * running: the header prints the load average.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createTestCertificate, postgresAvailable } from '@kyc/test-support';
import { compareAlternatives } from './alternatives.js';
import { benchHeader } from './bench-header.js';
import { claimCostSection } from './claim-cost.js';
import { enqueueSection } from './enqueue-cost.js';
import { hungAttemptsSection } from './hung-attempts.js';
import { idleLatency } from './idle-latency.js';
import { postgresEnqueueSection } from './postgres-enqueue.js';
import { type PostgresRun, postgresRun, printPostgresRuns } from './postgres-section.js';
import { startBenchReceiver } from './receiver.js';
import { rssSection } from './rss.js';
import { sqliteSection } from './sqlite-section.js';
import { bareUndici } from './sqlite-senders.js';
import { median, range } from './stats.js';
import { compareTelemetry } from './telemetry.js';

const CONCURRENCY = Number(process.env.KYC_BENCH_CONCURRENCY ?? 16);
// The target is for 4 workers; other counts show what the processes themselves cost.
const PG_WORKERS = Number(process.env.KYC_BENCH_PG_WORKERS ?? 4);
const EVENTS = Number(process.env.KYC_BENCH_EVENTS ?? 20_000);
// p99 of 1 000 samples is the 10th slowest; of 200 it was the 2nd or 3rd, one hiccup of the machine.
const LATENCY_SAMPLES = Number(process.env.KYC_BENCH_LATENCY_SAMPLES ?? 1000);
// Lines take turns over several rounds: single runs on a shared machine spread too widely to
// decide a target (0.35–0.51× of the ceiling over three otherwise identical runs).
const ROUNDS = Number(process.env.KYC_BENCH_ROUNDS ?? 3);
const ONLY = process.env.KYC_BENCH_ONLY?.split(',');
const section = (name: string) => ONLY === undefined || ONLY.includes(name);

const tls = await createTestCertificate();
const body = JSON.stringify({ ...sampleStatusWebhook, sessionId: 'bench' });
const dir = mkdtempSync(join(tmpdir(), 'kyc-bench-'));
const receiver = await startBenchReceiver(tls);
const context = { receiver, ca: tls.cert, body, dir, events: EVENTS, concurrency: CONCURRENCY };

try {
  console.log(benchHeader('@kyc/delivery-engine'));
  if (section('sqlite')) {
    await sqliteSection(context, ROUNDS);
    await enqueueSection({ dir, url: receiver.url, body, events: Math.floor(EVENTS / 4), rounds: ROUNDS });
  }
  const hasPostgres = await postgresAvailable();
  if (section('postgres') && hasPostgres) {
    const events = Math.floor(EVENTS / 2);
    console.log(
      `\n## Postgres: ${PG_WORKERS} worker processes × ${CONCURRENCY} in flight, ${events} deliveries per run`,
    );
    const runs: PostgresRun[] = [];
    const ceilings: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // The ceiling at the same requests in flight, measured beside each run.
      ceilings.push((await bareUndici({ ...context, concurrency: PG_WORKERS * CONCURRENCY }, events)).rate);
      runs.push(
        await postgresRun({ receiver, ca: tls.cert, body, events, workers: PG_WORKERS, concurrency: CONCURRENCY }),
      );
    }
    console.log(
      `bare undici request loop, ${PG_WORKERS * CONCURRENCY} in flight   ${median(ceilings).toFixed(0)}/s [${range(ceilings, 0)}]`,
    );
    printPostgresRuns(`engine, Postgres, ${PG_WORKERS} workers × ${CONCURRENCY}`, runs);
    await postgresEnqueueSection({ url: receiver.url, body, events: Math.floor(EVENTS / 4), rounds: ROUNDS });
  }
  if (section('latency')) {
    console.log("\n## Idle latency: one event at a time, enqueue() resolved → the receiver's handler");
    const sqlite = await idleLatency({ kind: 'sqlite', tls, body, dir, samples: LATENCY_SAMPLES });
    console.log(
      `SQLite, one process     p50 ${sqlite.p50.toFixed(2)} ms, p99 ${sqlite.p99.toFixed(2)} ms ` +
        `(target p50 ≤ 1, p99 ≤ 5); from the enqueue call p50 ${sqlite.fromCallP50.toFixed(2)} ms; ${sqlite.received}/${LATENCY_SAMPLES} received`,
    );
    if (hasPostgres) {
      const postgres = await idleLatency({ kind: 'postgres', tls, body, dir, samples: LATENCY_SAMPLES });
      console.log(
        `Postgres, LISTEN/NOTIFY p50 ${postgres.p50.toFixed(2)} ms, p99 ${postgres.p99.toFixed(2)} ms; ` +
          `from the enqueue call p50 ${postgres.fromCallP50.toFixed(2)} ms; ${postgres.received}/${LATENCY_SAMPLES} received`,
      );
    }
  }
  if (section('telemetry')) {
    // OpenTelemetry: absent, API without SDK, SDK registered (issue 11).
    await compareTelemetry({
      url: receiver.url,
      ca: tls.cert,
      body,
      dir,
      events: Math.floor(EVENTS / 4),
      concurrency: CONCURRENCY,
      rounds: 3,
    });
  }
  if (section('alternatives') && hasPostgres) {
    await compareAlternatives({
      url: receiver.url,
      received: () => receiver.count(),
      tls,
      body,
      dir,
      events: Math.floor(EVENTS / 4),
      concurrency: CONCURRENCY,
      latencySamples: LATENCY_SAMPLES,
      rounds: ROUNDS,
    });
  }
  if (section('claims')) await claimCostSection(dir, ROUNDS, await postgresAvailable());
  if (section('memory')) {
    await rssSection(dir);
    await hungAttemptsSection(dir);
  }
} finally {
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
