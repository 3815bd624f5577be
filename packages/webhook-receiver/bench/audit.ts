import { closeSync, constants, openSync, write } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEADERS } from '@kyc/contracts';
import pg from 'pg';
import { APPEND_WITHIN, appendQueue } from '../src/audit/append-queue.js';
import { auditTrail } from '../src/audit.js';
import { jsonlAuditSink, nodeSha256 } from '../src/audit-file.js';
import { type AuditSink, createWebhookReceiver, type ReceiverInput } from '../src/index.js';
import { createAuditTable, postgresAuditSink } from '../src/postgres.js';
import { AUTH_KEY, bodies } from './fixtures.js';
import { median } from './median.js';
import { recordTarget, spread } from './targets.js';

const ROUNDS = Number(process.env.KYC_BENCH_ROUNDS ?? 3);
const REQUESTS = 4_000;
const CONCURRENCY = 16;
const POSTGRES_URL = process.env.KYC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One request as an adapter would describe it: a new event each time (verify + parse + claim + handler + complete). */
function inputFor(bytes: Uint8Array, id: string): ReceiverInput {
  const headers: Record<string, string> = {
    [HEADERS.authorization]: `Bearer ${AUTH_KEY}`,
    [HEADERS.webhookId]: id,
  };
  return { method: 'POST', header: (name) => headers[name], readBody: async () => bytes };
}

/** Wall-clock microseconds per request with CONCURRENCY requests in flight, and CPU µs per request. */
async function measure(
  sink: AuditSink | undefined,
  label: string,
  round: number,
): Promise<{ wall: number; cpu: number }> {
  const receiver = createWebhookReceiver({
    authKeys: AUTH_KEY,
    onEvent: () => undefined,
    logger: {},
    ...(sink === undefined ? {} : { audit: auditTrail({ sink, timeoutMs: 30_000 }) }),
  });
  const bytes = new TextEncoder().encode(bodies.status);
  let next = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      const answer = await receiver.receive(inputFor(bytes, `evt_${label}_${round}_${next++}`));
      if (answer.status !== 200) throw new Error(`${label}: answered ${answer.status}`);
    }
  };
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const wall = ((performance.now() - start) * 1000) / REQUESTS;
  const used = process.cpuUsage(cpuStart);
  return { wall, cpu: (used.user + used.system) / REQUESTS };
}

/**
 * The floor under a durable log: the receiver's batches (CONCURRENCY entries of ENTRY_BYTES) as
 * plain `O_DSYNC` appends through the thread pool, no record, hash or JSON at all. CPU µs per
 * request (the batch's cost ÷ its requests), this process's.
 */
async function measureDurableAppend(path: string): Promise<number> {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC);
  const batch = Buffer.alloc(CONCURRENCY * ENTRY_BYTES, 'a');
  const append = () =>
    new Promise<void>((resolve, reject) =>
      write(fd, batch, 0, batch.length, null, (error) => (error ? reject(error) : resolve())),
    );
  try {
    const cpuStart = process.cpuUsage();
    for (let written = 0; written < REQUESTS; written += CONCURRENCY) await append();
    const used = process.cpuUsage(cpuStart);
    return (used.user + used.system) / REQUESTS;
  } finally {
    closeSync(fd);
  }
}
// What one entry of the status body takes on a line (measured: 804–805 bytes with ids of this length).
const ENTRY_BYTES = 805;

/**
 * The receiver's audit path with nothing of the log's own work: each record is built (its body
 * hashed) and queued as the JSON Lines sink queues it, and each batch is the floor's `O_DSYNC`
 * append of ENTRY_BYTES per record, with no chain, hash or JSON. What the JSON Lines sink costs
 * above this line is its own; what this line costs above the floor is the receiver waiting for
 * the disk (a promise per request, a batch per turn of the event loop).
 */
function queuedAppendSink(path: string): AuditSink & { close(): Promise<void> } {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC);
  const batch = Buffer.alloc(256 * ENTRY_BYTES, 'a');
  const queue = appendQueue(
    (records) =>
      new Promise((resolve, reject) =>
        write(fd, batch, 0, records.length * ENTRY_BYTES, null, (error) =>
          error
            ? reject(error)
            : resolve(records.map((record, index) => ({ ...record, v: 1, seq: index + 1, prevHash: '', hash: '' }))),
        ),
      ),
    { defer: setImmediate },
  );
  return {
    append: queue.append,
    [APPEND_WITHIN]: queue.appendWithin,
    sha256: nodeSha256,
    close: async () => closeSync(fd),
  } as AuditSink & { close(): Promise<void> };
}

const OFF = 'audit off (baseline)';
const JSONL = 'JSON Lines, fdatasync per batch';
const POSTGRES = 'Postgres (127.0.0.1)';
const QUEUED = 'record + queue + O_DSYNC, no log';

/**
 * The issue 16 bench: the whole receiver path (verify + parse + memory claim + handler +
 * complete) with the audit off, with the JSON Lines sink (fdatasync per batch, and with fsync
 * off) and with the Postgres sink, in one run, interleaved, as ratios to the audit off taken
 * within each round. A first round warms every case up and is not counted. CPU is this
 * process's (user + system, every thread: the fdatasync and the Postgres client included, the
 * Postgres server not).
 */
export async function runAudit(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'kyc-audit-bench-'));
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
  const tableName = `kyc_audit_bench_${process.pid}`;
  try {
    await createAuditTable(pool, { tableName });
    const sinks: Record<string, () => AuditSink | undefined> = {
      [OFF]: () => undefined,
      [JSONL]: () => jsonlAuditSink({ directory: join(directory, 'sync') }),
      'JSON Lines, fsync none': () => jsonlAuditSink({ directory: join(directory, 'nosync'), fsync: 'none' }),
      [POSTGRES]: () => postgresAuditSink(pool, { tableName, sha256: nodeSha256 }),
      [QUEUED]: () => queuedAppendSink(join(directory, 'queued.bin')),
    };
    const opened = Object.fromEntries(Object.entries(sinks).map(([label, make]) => [label, make()]));
    const samples: Record<string, { wall: number[]; cpu: number[] }> = Object.fromEntries(
      Object.keys(sinks).map((label) => [label, { wall: [], cpu: [] }]),
    );
    console.log(
      `\n## Audit trail (${REQUESTS} requests × ${ROUNDS} interleaved rounds after one to warm up, ${CONCURRENCY} in flight, ` +
        'status body; wall and CPU µs/request, medians and range; ratios to the audit off within each round)',
    );
    const floor: number[] = [];
    for (let round = -1; round < ROUNDS; round++) {
      for (const [label, sink] of Object.entries(opened)) {
        const { wall, cpu } = await measure(sink, label.replace(/\W+/g, '_'), round);
        if (round < 0) continue;
        samples[label]?.wall.push(wall);
        samples[label]?.cpu.push(cpu);
      }
      const append = await measureDurableAppend(join(directory, 'floor.bin'));
      if (round >= 0) floor.push(append);
    }
    const base = samples[OFF] ?? { wall: [], cpu: [] };
    const ratios = (values: readonly number[], baseline: readonly number[]) =>
      values.map((value, round) => value / (baseline[round] ?? Number.NaN));
    const range = (values: readonly number[]) =>
      `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
    for (const [label, { wall, cpu }] of Object.entries(samples)) {
      console.log(
        `${label.padEnd(34)} wall ${range(wall).padEnd(20)} µs ${spread(ratios(wall, base.wall)).padEnd(20)}` +
          `cpu ${range(cpu).padEnd(18)} µs ${spread(ratios(cpu, base.cpu))}`,
      );
    }
    const offPlusAppend = floor.map(
      (append, round) => (append + (base.cpu[round] ?? Number.NaN)) / (base.cpu[round] ?? Number.NaN),
    );
    console.log(
      `${'floor: O_DSYNC append of the batch'.padEnd(34)} ${''.padEnd(28)}cpu ${range(floor).padEnd(18)} µs alone; ` +
        `audit off + it ÷ audit off ${spread(offPlusAppend)} (the least a durable log can cost here)`,
    );
    const cpuOf = (label: string) =>
      `${median(samples[label]?.cpu ?? []).toFixed(1)} µs vs ${median(base.cpu).toFixed(1)} µs`;
    // Issue 31: the JSON Lines sink against the disk's floor of the same round (the audit off plus
    // the bare O_DSYNC append), so that a slower or faster disk moves both sides.
    const floorCpu = floor.map((append, round) => append + (base.cpu[round] ?? Number.NaN));
    recordTarget({
      measure: 'audit JSON Lines (fdatasync per batch) ÷ (audit off + O_DSYNC append), CPU',
      ratios: ratios(samples[JSONL]?.cpu ?? [], floorCpu),
      target: 1.15,
      atLeast: false,
      detail:
        `${median(samples[JSONL]?.cpu ?? []).toFixed(1)} µs vs ${median(floorCpu).toFixed(1)} µs; ÷ off ` +
        `${spread(ratios(samples[JSONL]?.cpu ?? [], base.cpu))}, the floor ÷ off ${spread(offPlusAppend)}; ` +
        `record + queue + O_DSYNC (no log) ÷ the floor ${spread(ratios(samples[QUEUED]?.cpu ?? [], floorCpu))}`,
    });
    recordTarget({
      measure: 'audit on (Postgres sink) ÷ off, CPU per request',
      ratios: ratios(samples[POSTGRES]?.cpu ?? [], base.cpu),
      target: 2,
      atLeast: false,
      detail: cpuOf(POSTGRES),
    });
    for (const sink of Object.values(opened)) await sink?.close?.();
  } finally {
    await pool.query(`DROP TABLE IF EXISTS "${tableName}" CASCADE`).catch(() => undefined);
    await pool.query(`DROP FUNCTION IF EXISTS "${tableName}_append_only"() CASCADE`).catch(() => undefined);
    await pool.end();
    await rm(directory, { recursive: true, force: true });
  }
}
