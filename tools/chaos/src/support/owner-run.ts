import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DeliveryRecord } from '@kyc/delivery-engine';
import { CHAOS_KEY, type ChaosReceiver, startChaosReceiver } from './chaos-receiver.js';
import { type SourcePatch, spawnPatchedScript } from './patched-script.js';
import { readSqliteRecords } from './read-sqlite-records.js';
import type { Invariants, RunContext } from './scenario.js';
import { accountSends, countPerId } from './send-accounting.js';
import { type ChildScript, spawnScript } from './spawn-script.js';

/** What a host-fault scenario sets on top of the common SQLite owner run. */
export interface OwnerRunOptions {
  readonly context: RunContext;
  readonly invariants: Invariants;
  /** Events the owner enqueues (one every `intervalMs`), then it drains and exits. */
  readonly events: number;
  readonly intervalMs?: number;
  /** How long the receiver holds each answer, so attempts are in flight when the fault strikes. */
  readonly receiverDelayMs?: number;
  /** Extra worker configuration (see workers/engine-worker.ts). */
  readonly worker?: Record<string, unknown>;
  /**
   * Whether every event must reach the receiver exactly once (default). A scenario whose fault
   * can make a legitimate timeout (an answer that really came after the deadline) checks its own.
   */
  readonly expectOnce?: boolean;
  /** The broken builds of this scenario: `--break <name>` runs the owner with these patches. */
  readonly breaks?: Readonly<Record<string, readonly SourcePatch[]>>;
  /** Runs on the database file before the owner starts (a scenario's history). */
  prepare?(path: string): Promise<void>;
  /** The fault, played while the owner runs. */
  fault(run: OwnerRun): Promise<void>;
}

/** The run as the fault sees it. */
export interface OwnerRun {
  readonly owner: ChildScript;
  readonly path: string;
  readonly receiver: ChaosReceiver;
  /** The common worker configuration (for a second engine on the same file). */
  readonly base: Record<string, unknown>;
  /** Lines the owner printed, in order. */
  readonly lines: readonly string[];
  /** Attempts the receiver is holding right now. */
  inFlight(): number;
}

/** What every host-fault scenario checks and prints. */
export interface OwnerRunResult {
  readonly records: readonly DeliveryRecord[];
  readonly acked: ReadonlySet<string>;
  readonly refused: number;
  readonly lost: number;
  /** Events the receiver got more than once (every answer is a 200: each is a duplicate). */
  readonly sentMoreThanOnce: number;
  /** Events sent more often than their attempt log has attempts. */
  readonly beyondLog: number;
  /** Of those, events whose log counts the extra sends (`unrecordedSends`). */
  readonly explained: number;
  /** Ids the receiver got more than once. */
  readonly twice: readonly string[];
  readonly receipts: ChaosReceiver['receipts'];
  readonly lines: readonly string[];
  readonly ownerStderr: string;
}

/**
 * One SQLite owner delivering `events` to a healthy receiver while a host fault is played on it,
 * then read back: the common frame of the host-fault scenarios (issue 32). Every one of them must
 * lose nothing and send nothing twice; the counts of sends beyond the attempt log and of those the
 * log explains (`unrecordedSends`) are figures of each.
 */
export async function runOwner(options: OwnerRunOptions): Promise<OwnerRunResult> {
  const { context, invariants } = options;
  const receiver = await startChaosReceiver({
    random: context.random,
    faults: { reset: 0, resetMidBody: 0, hang: 0, error: 0 },
    ...(options.receiverDelayMs !== undefined && { delayMs: options.receiverDelayMs }),
  });
  const dataDir = join(context.dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'engine.db');
  const base = {
    store: 'sqlite',
    path,
    ca: receiver.certificate.cert,
    concurrency: 16,
    timeScale: { factor: 1, anchor: Date.now() },
    leaseMs: 4000,
    deadlineMs: 3000,
    maxWorkerLosses: 100,
    authKey: CHAOS_KEY,
    url: `${receiver.origin}/hook`,
    failUrl: `${receiver.origin}/fail`,
    maxLifeMs: 120_000,
  };
  const acked = new Set<string>();
  const lines: string[] = [];
  let refused = 0;
  try {
    const config = {
      ...base,
      ...options.worker,
      enqueue: { prefix: 'e', intervalMs: options.intervalMs ?? 5, failEvery: 1_000_000_000 },
      enqueueCount: options.events,
    };
    const onLine = (line: string) => {
      lines.push(line);
      if (line.startsWith('ack ')) acked.add(line.slice(4));
      if (line.startsWith('refused ')) refused++;
    };
    await options.prepare?.(path);
    const patches = context.breakWith === undefined ? undefined : options.breaks?.[context.breakWith];
    const owner =
      patches === undefined
        ? spawnScript('engine-worker', config, onLine)
        : await spawnPatchedScript('engine-worker', config, patches, onLine);
    await owner.waitFor('started');
    const answered = () => receiver.receipts.filter((r) => r.answer !== undefined).length;
    await options.fault({
      owner,
      path,
      receiver,
      base,
      lines,
      inFlight: () => receiver.receipts.length - answered(),
    });
    const code = await owner.exited;
    invariants.check(code === 0, 'the owner did not finish its run', () => `${code}: ${owner.stderr().slice(-500)}`);
    // Whatever is left (a fenced-off owner leaves the rest to its successor) is drained.
    const drain = spawnScript('engine-worker', { ...base, drain: true });
    const drained = await drain.exited;
    invariants.check(drained === 0, 'the drain did not finish', () => `${drained}: ${drain.stderr().slice(-500)}`);
    const records = await readSqliteRecords(path);
    const stored = new Set(records.map((record) => record.id));
    const lost = [...acked].filter((id) => !stored.has(id));
    invariants.check(
      lost.length === 0,
      'lost: enqueue resolved but the event is not in the store',
      () => lost[0] ?? '',
    );
    for (const record of records) {
      invariants.check(
        record.state === 'delivered',
        'an event was not delivered',
        () => `${record.id} ${record.state}`,
      );
    }
    // Every answer here is a 200: a second receipt of an event is a duplicate for the customer,
    // whatever the log says (an attempt recorded as a timeout although its 200 had arrived too).
    const receipts = countPerId(receiver.receipts);
    const twice = [...receipts].filter(([, n]) => n > 1).map(([id]) => id);
    const sends = accountSends(records, receipts);
    if (options.expectOnce !== false) {
      invariants.check(twice.length === 0, 'sent more than once', () => twice.slice(0, 3).join(', '));
    }
    invariants.check(
      sends.explained === sends.sentMoreThanOnce.length,
      'sent more often than the attempt log shows, without a trace of the unrecorded sends',
      () => `${sends.sentMoreThanOnce.length - sends.explained} unexplained`,
    );
    return {
      records,
      acked,
      refused,
      lost: lost.length,
      sentMoreThanOnce: twice.length,
      beyondLog: sends.sentMoreThanOnce.length,
      explained: sends.explained,
      twice,
      receipts: receiver.receipts,
      lines,
      ownerStderr: owner.stderr(),
    };
  } finally {
    await receiver.close();
  }
}

/** The figures every host-fault scenario prints, in this order. */
export function accountingFigures(result: OwnerRunResult): [string, string | number][] {
  return [
    ['events acknowledged', result.acked.size],
    ['lost', result.lost],
    ['sent more than once', result.sentMoreThanOnce],
    ['sent more often than the attempt log has attempts', result.beyondLog],
    ['  of those, explained by its unrecorded sends', result.explained],
  ];
}
