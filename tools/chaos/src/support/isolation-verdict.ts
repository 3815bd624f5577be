import type { IsolationPlan, Observed, StoreCounts } from './isolation-parts.js';
import { Invariants, type Outcome } from './scenario.js';

/** The per-endpoint cap at the engine's defaults. */
const CAP = 4;
/** The start of the control phase, left out of its latency: first connections, a cold process. */
const WARM_UP_MS = 2000;
/** Boundary effects at the start of the fault window are left out of the throughput figure. */
const SETTLE_MS = 2000;

interface Times {
  readonly startAt: number;
  readonly faultAt: number;
  readonly loadEnd: number;
  /** When the engines were stopped. */
  readonly endAt: number;
  readonly workers: number;
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const ms = (value: number) => `${Math.round(value)} ms`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/**
 * The bar of issue 40, judged on what the children printed and what the store holds: healthy
 * endpoints' p99 latency (enqueue acknowledged → request arrives) in the fault phase at most twice
 * the control phase's plus 250 ms; healthy throughput equal to the offered load; every healthy event
 * delivered, and once; nothing acknowledged missing from the store; every hanging endpoint given its
 * own cap of attempts (never held back to protect others); warm connections where asked.
 */
export function judgeIsolation(plan: IsolationPlan, observed: Observed, counts: StoreCounts, times: Times): Outcome {
  const invariants = new Invariants();
  const latencies = { control: [] as number[], fault: [] as number[] };
  const undelivered: string[] = [];
  const twice: string[] = [];
  const deadInFault = new Map<string, { acked: number; received: number }>();
  let offered = 0;
  let delivered = 0;
  for (const [id, ack] of observed.acks) {
    const kind = id[0];
    const arrival = observed.arrivals.get(id);
    if (arrival !== undefined && arrival.count > 1 && kind !== 'd') twice.push(id);
    if (kind === 'd' && ack >= times.faultAt) {
      const host = id.split('-')[0] ?? '';
      const entry = deadInFault.get(host) ?? { acked: 0, received: 0 };
      if (ack < times.loadEnd - SETTLE_MS) entry.acked++;
      if (arrival !== undefined && arrival.at < times.loadEnd) entry.received++;
      deadInFault.set(host, entry);
    }
    if (kind !== 'h') continue;
    if (arrival === undefined) undelivered.push(id);
    // Never delivered: it waited at least until the end of the run.
    const latency = (arrival?.at ?? times.endAt) - ack;
    // The first connections to each endpoint and a cold process are not the control's measure.
    if (ack >= times.faultAt) latencies.fault.push(latency);
    else if (ack >= times.startAt + WARM_UP_MS) latencies.control.push(latency);
    const inWindow = (at: number) => at >= times.faultAt + SETTLE_MS && at < times.loadEnd;
    if (inWindow(ack)) offered++;
    if (arrival !== undefined && inWindow(arrival.at)) delivered++;
  }
  const control = percentile(latencies.control, 99);
  const fault = percentile(latencies.fault, 99);
  const bound = 2 * control + 250;
  invariants.check(latencies.control.length > 0 && latencies.fault.length > 0, 'no healthy delivery measured');
  invariants.check(
    fault <= bound,
    'healthy p99 latency in the fault phase above 2 × the control phase p99 + 250 ms',
    () => `${ms(fault)} > ${ms(bound)}`,
  );
  invariants.check(undelivered.length === 0, 'a healthy event was never delivered', () =>
    undelivered.slice(0, 3).join(', '),
  );
  invariants.check(twice.length === 0, 'an event was sent twice though no process died', () =>
    twice.slice(0, 3).join(', '),
  );
  const throughput = offered === 0 ? 1 : delivered / offered;
  invariants.check(
    throughput >= 0.9,
    'healthy throughput below the offered load',
    () => `${(throughput * 100).toFixed(0)} %`,
  );
  const held = [...deadInFault].filter(([, e]) => e.received < Math.min(CAP * times.workers, e.acked));
  invariants.check(held.length === 0, 'a hanging endpoint got fewer attempts than its own cap', () =>
    held
      .slice(0, 3)
      .map(([host, e]) => `${host}: ${e.received} of ${e.acked}`)
      .join(', '),
  );
  const stored = [...counts.values()].reduce((n, c) => n + c.pending + c.delivered + c.failed, 0);
  const acknowledged = observed.acks.size + (observed.flood?.count ?? 0);
  invariants.check(
    stored === acknowledged,
    'an acknowledged event is missing from the store',
    () => `${stored} of ${acknowledged}`,
  );
  const healthyRows = counts.get('h') ?? { pending: 0, delivered: 0, failed: 0 };
  invariants.check(healthyRows.pending + healthyRows.failed === 0, 'a healthy delivery is not delivered in the store');
  const figures: [string, string | number][] = [
    ['endpoints (healthy / hanging / answering late)', `${plan.healthy} / ${plan.dead} / ${plan.slow}`],
    ['load, engine processes', `${plan.ratePerSec}/s, ${times.workers}`],
    [
      'healthy p50 / p99, control phase (after its first 2 s)',
      `${ms(percentile(latencies.control, 50))} / ${ms(control)} (${latencies.control.length})`,
    ],
    [
      'healthy p50 / p99, fault phase',
      `${ms(percentile(latencies.fault, 50))} / ${ms(fault)} (${latencies.fault.length})`,
    ],
    ['bound on the fault p99 (2 × control + 250 ms)', ms(bound)],
    [
      'healthy throughput in the fault phase',
      `${delivered} of ${offered} offered (${(throughput * 100).toFixed(1)} %)`,
    ],
    [
      'hanging endpoints given their cap in the fault phase',
      `${deadInFault.size - held.length} of ${deadInFault.size}`,
    ],
    ['in the store at the end: acknowledged / stored', `${acknowledged} / ${stored}`],
  ];
  if (observed.flood !== undefined) {
    const flood = counts.get('f') ?? { pending: 0, delivered: 0, failed: 0 };
    figures.push([
      'flood: enqueued in / delivered by the end',
      `${((observed.flood.last - observed.flood.first) / 1000).toFixed(1)} s / ${flood.delivered} of ${observed.flood.count}`,
    ]);
  }
  if (plan.warmConnections) {
    const contacted = new Set([...observed.arrivals.values()].filter((a) => a.at < times.faultAt).map((a) => a.host));
    const later = [...observed.arrivals].filter(
      ([id, a]) => id.startsWith('h') && a.at >= times.faultAt && contacted.has(a.host),
    );
    const opened = later.filter(([, a]) => a.opened).length;
    const share = later.length === 0 ? 0 : opened / later.length;
    invariants.check(
      share <= 0.1,
      'warm endpoints opened a new connection per event',
      () => `${(share * 100).toFixed(0)} %`,
    );
    figures.push(['requests to endpoints already contacted that opened a connection', `${opened} of ${later.length}`]);
    figures.push(...warmFigures(observed, plan.healthy + plan.dead + plan.slow));
  }
  figures.push(...memoryFigures(observed, times.workers, times));
  return { figures, failures: invariants.failures };
}

/** The first engine's CPU share and RSS and descriptors at the end of each phase. */
function memoryFigures(observed: Observed, workers: number, times: Times): [string, string][] {
  const at = (phase: string) => observed.stats.find((s) => s.worker === 0 && s.fields[0] === phase)?.fields.map(Number);
  const warm = at('warm');
  const control = at('control');
  const fault = at('fault');
  if (warm === undefined || control === undefined || fault === undefined) return [];
  const [, , , , cpu0 = 0] = warm;
  const [, rss1 = 0, fds1 = 0, , cpu1 = 0] = control;
  const [, rss2 = 0, fds2 = 0, , cpu2 = 0, prompt = 0, slow = 0, slowOrigins = 0] = fault;
  const share = (cpu: number, span: number) => `${((cpu / 1000 / span) * 100).toFixed(0)} %`;
  const engine = `engine${workers > 1 ? ' 1' : ''}`;
  return [
    [
      `${engine} CPU, share of a core: control → fault`,
      `${share(cpu1 - cpu0, times.faultAt - times.startAt)} → ${share(cpu2 - cpu1, times.loadEnd - times.faultAt)}`,
    ],
    [`${engine} RSS / descriptors, end of control → end of fault`, `${mb(rss1)} / ${fds1} → ${mb(rss2)} / ${fds2}`],
    [
      'attempts in flight at the end of the fault phase (prompt / slow), slow endpoints',
      `${prompt} / ${slow}, ${slowOrigins}`,
    ],
  ];
}

/** What the warm-up cost the first engine: RSS and descriptors per endpoint it keeps a connection to. */
function warmFigures(observed: Observed, origins: number): [string, string][] {
  const at = (phase: string) => observed.stats.find((s) => s.worker === 0 && s.fields[0] === phase)?.fields.map(Number);
  const [, rss0 = 0, fds0 = 0, heap0 = 0] = at('cold') ?? [];
  const [, rss1 = 0, fds1 = 0, heap1 = 0] = at('warm') ?? [];
  if (rss0 === 0 || rss1 === 0) return [];
  return [
    [
      `per endpoint kept warm (${origins}): RSS / heap / descriptors`,
      `${((rss1 - rss0) / origins / 1024).toFixed(0)} KB / ${((heap1 - heap0) / origins / 1024).toFixed(0)} KB / ${((fds1 - fds0) / origins).toFixed(2)}`,
    ],
  ];
}
