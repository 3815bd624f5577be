import { type IsolationPlan, runIsolation } from '../support/isolation-run.js';
import type { SourcePatch } from '../support/patched-script.js';
import type { Mode, RunContext, Scenario } from '../support/scenario.js';

/** Short in CI; the full run covers a deadline, the first retries and a 100 000-event flood. */
const PHASES: Record<Mode, Pick<IsolationPlan, 'controlMs' | 'faultMs' | 'drainMs'>> = {
  ci: { controlMs: 6_000, faultMs: 12_000, drainMs: 5_000 },
  full: { controlMs: 30_000, faultMs: 90_000, drainMs: 20_000 },
};

/**
 * One shared pool of slots, as before issue 40: nothing ever leaves the prompt lane, so
 * `concurrency ÷ perEndpointConcurrency` endpoints that hang hold every slot.
 */
const ONE_LANE: readonly SourcePatch[] = [
  {
    file: 'engine/attempt-slots.ts',
    search: "const lane: Lane = marks.has(origin) ? 'slow' : 'prompt';",
    replace: "const lane: Lane = 'prompt';",
  },
  { file: 'engine/attempt-slots.ts', search: 'if (slot.takenAt > cutoff) break;', replace: 'break;' },
];

/**
 * Claims and idle passes that walk the backlog row by row, as before issue 40: a claim's read of an
 * origin's rows scans the table, and the idle pass reads the earliest due time past the saturated
 * origins' rows.
 */
const WALK_BACKLOG: readonly SourcePatch[] = [
  {
    file: 'store/sqlite/due-reads.ts',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text to patch, not a template
    search: 'const from = `SELECT ${DUE_COLUMNS} FROM ${t.deliveries}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text to patch, not a template
    replace: 'const from = `SELECT ${DUE_COLUMNS} FROM ${t.deliveries} NOT INDEXED',
  },
  {
    file: 'store/sqlite/owner-store.ts',
    search: 'const due = origins.nextDue(exclude, lanes);',
    replace:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text to patch, not a template
      "const due = (db.prepare(`SELECT min(next_attempt_at) AS at FROM ${t.deliveries} WHERE state = 'pending' AND origin NOT IN (SELECT value FROM json_each(?))`).get(JSON.stringify(exclude)) as { at: number | null }).at ?? origins.nextDue(exclude, lanes);",
  },
];

/** The pool cache as before: 512 origins, so a larger customer base opens a connection per event. */
const FEW_POOLS: readonly SourcePatch[] = [
  {
    file: 'transport/pool-cache.ts',
    search: 'export const MAX_POOLS = 8192;',
    replace: 'export const MAX_POOLS = 512;',
  },
];

function isolation(
  name: string,
  title: string,
  plan: (mode: Mode) => Omit<IsolationPlan, 'controlMs' | 'faultMs' | 'drainMs'>,
  breaks: Readonly<Record<string, readonly SourcePatch[]>>,
): Scenario {
  return {
    name,
    title,
    breaks: Object.keys(breaks),
    // Not alone: each verdict compares the fault phase with a control phase of the same run, so a
    // neighbour's load weighs on both. Run beside a full test suite (load average 9-10), all six
    // held with a wide margin: fault p99 3-51 ms against bounds of 256-282 ms, 99.9-100 % throughput.
    run: (context: RunContext) => runIsolation(context, { ...plan(context.mode), ...PHASES[context.mode] }, breaks),
  };
}

const fifty = { store: 'sqlite', workers: 1, ratePerSec: 100 } as const;

/** The rows of issue 40's table, at the engine's default options, each with a control phase. */
export const isolationScenarios: readonly Scenario[] = [
  isolation(
    'isolation-dead',
    'endpoint isolation: 5 of 50 endpoints accept the connection and never answer (SQLite)',
    () => ({ ...fifty, healthy: 45, dead: 5, slow: 0 }),
    { 'one-lane': ONE_LANE },
  ),
  isolation(
    'isolation-dead-30',
    'endpoint isolation: 15 of 50 endpoints never answer (SQLite)',
    () => ({ ...fifty, healthy: 35, dead: 15, slow: 0 }),
    { 'one-lane': ONE_LANE },
  ),
  isolation(
    'isolation-slow',
    'endpoint isolation: 5 of 50 endpoints answer 200 after 25 s, within the 30 s limit (SQLite)',
    () => ({ ...fifty, healthy: 45, dead: 0, slow: 5 }),
    { 'one-lane': ONE_LANE },
  ),
  isolation(
    'isolation-flood',
    'endpoint isolation: one company gets a flood of events at once, its endpoint fast (SQLite)',
    (mode) => ({ ...fifty, healthy: 50, dead: 0, slow: 0, flood: mode === 'full' ? 100_000 : 20_000 }),
    { 'walk-backlog': WALK_BACKLOG },
  ),
  isolation(
    'isolation-pg',
    'endpoint isolation: 5 of 50 endpoints never answer, Postgres with two worker processes',
    () => ({ ...fifty, store: 'postgres', workers: 2, healthy: 45, dead: 5, slow: 0 }),
    { 'one-lane': ONE_LANE },
  ),
  isolation(
    'isolation-5000',
    'endpoint isolation: 1 % of a customer base of thousands never answers, connections kept warm (SQLite)',
    (mode) => {
      const origins = mode === 'full' ? 5000 : 1000;
      return {
        ...fifty,
        ratePerSec: 200,
        healthy: origins * 0.99,
        dead: origins * 0.01,
        slow: 0,
        // A first contact is a TLS handshake on both sides: a real service's connections are warm.
        warmConnections: true,
      };
    },
    { 'few-pools': FEW_POOLS, 'one-lane': ONE_LANE },
  ),
];
