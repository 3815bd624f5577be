import { join } from 'node:path';
import { POSTGRES_URL } from '@kyc/test-support';
import type { IsolationEngineConfig } from '../workers/isolation-engine.js';
import { type IsolationPlan, isolationCertificate, type Observed, storeCounts } from './isolation-parts.js';
import { judgeIsolation } from './isolation-verdict.js';
import { type SourcePatch, spawnPatchedScript } from './patched-script.js';
import { pause } from './pause.js';
import type { Outcome, RunContext } from './scenario.js';
import { type ChildScript, spawnScript } from './spawn-script.js';

export type { IsolationPlan } from './isolation-parts.js';

/** Every host of a plan, interleaved so each class is spread over the round of events. */
function hostsOf(plan: IsolationPlan): string[] {
  const hosts: string[] = [];
  const longest = Math.max(plan.healthy, plan.dead, plan.slow);
  for (let i = 0; i < longest; i++) {
    if (i < plan.healthy) hosts.push(`h${i}`);
    if (i < plan.dead) hosts.push(`d${i}`);
    if (i < plan.slow) hosts.push(`s${i}`);
  }
  return hosts;
}

/**
 * Runs one isolation plan: a receiver process playing every company's endpoint, engine processes
 * at their default options (one SQLite owner, or Postgres workers sharing a schema), a control
 * phase with every endpoint healthy, then a fault phase in which the plan's endpoints hang or
 * answer late (or one company is flooded), then a drain; and judges it against the bar.
 */
export async function runIsolation(
  context: RunContext,
  plan: IsolationPlan,
  breaks: Readonly<Record<string, readonly SourcePatch[]>> = {},
): Promise<Outcome> {
  const certificate = await isolationCertificate();
  const observed: Observed = { acks: new Map(), arrivals: new Map(), stats: [], flood: undefined };
  let port = 0;
  const onLine = (worker: number) => (line: string) => {
    const [kind, a, b, c, d] = line.split(' ');
    if (kind === 'listening') port = Number(a);
    else if (kind === 'E') observed.acks.set(a ?? '', Number(b));
    else if (kind === 'R') {
      const seen = observed.arrivals.get(a ?? '');
      if (seen === undefined)
        observed.arrivals.set(a ?? '', { at: Number(b), host: c ?? '', opened: d === '1', count: 1 });
      else seen.count++;
    } else if (kind === 'F') observed.flood = { count: Number(a), first: Number(b), last: Number(c) };
    else if (kind === 'M') observed.stats.push({ worker, fields: line.split(' ').slice(1) });
  };
  const { controlMs, faultMs } = plan;
  const receiver = spawnScript(
    'isolation-receiver',
    { ...certificate, answerMs: 5, slowMs: plan.slowAnswerMs ?? 25_000, controlMs },
    onLine(-1),
  );
  const children: ChildScript[] = [receiver];
  const schema = `kyc_isolation_${process.pid}_${Date.now().toString(36)}`;
  const pg = plan.store === 'postgres' ? await import('pg') : undefined;
  const admin = pg === undefined ? undefined : new pg.default.Pool({ connectionString: POSTGRES_URL, max: 2 });
  try {
    await receiver.waitFor('listening');
    const path = join(context.dir, 'isolation.db');
    const workers = plan.store === 'sqlite' ? 1 : plan.workers;
    for (let worker = 0; worker < workers; worker++) {
      const config: IsolationEngineConfig = {
        store: plan.store,
        ...(plan.store === 'sqlite' ? { path } : { postgresUrl: POSTGRES_URL, schema }),
        ca: certificate.cert,
        port,
        controlMs,
        faultMs,
        ...(worker === 0 && {
          load: {
            ratePerSec: plan.ratePerSec,
            hosts: hostsOf(plan),
            ...(plan.flood !== undefined && { flood: { atMs: 1000, count: plan.flood, host: 'f0' } }),
            ...(plan.warmConnections === true && { warmUp: true }),
          },
        }),
      };
      const child =
        context.breakWith === undefined
          ? spawnScript('isolation-engine', config, onLine(worker))
          : await spawnPatchedScript('isolation-engine', config, breaks[context.breakWith] ?? [], onLine(worker));
      children.push(child);
      await child.waitFor('started');
    }
    // Every engine started, and every endpoint contacted once where the plan warms them up: the
    // phases start now, in the receiver and the engines alike.
    await Promise.all(children.slice(1).map((child) => child.waitFor('warmed')));
    const startAt = Date.now();
    for (const child of children) child.kill('SIGUSR2');
    const faultAt = startAt + controlMs;
    const loadEnd = faultAt + faultMs;
    const endAt = loadEnd + plan.drainMs;
    while (Date.now() < endAt) {
      await pause(Math.min(5000, endAt - Date.now()));
      context.progress(`${observed.acks.size} acknowledged, ${observed.arrivals.size} received`);
    }
    const engines = children.slice(1);
    for (const engine of engines) engine.kill('SIGTERM');
    await Promise.all(engines.map((engine) => engine.exited));
    const counts = await storeCounts(plan.store, plan.store === 'sqlite' ? path : schema, admin);
    return judgeIsolation(plan, observed, counts, { startAt, faultAt, loadEnd, endAt, workers });
  } finally {
    for (const child of children) child.kill('SIGKILL');
    if (admin !== undefined) {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await admin.end();
    }
  }
}
