import type { Scenario } from './scenario.js';

/**
 * Runs `run` over the scenarios, `jobs` at a time, except that a scenario marked `alone` starts
 * only when nothing else runs, and nothing starts beside it. The scenarios are mostly waits
 * (leases, restarts, drains), so two share two cores well; the `alone` ones keep their timing
 * verdicts free of a neighbour's load. Order of start: the given order, shared ones first, so the
 * lone ones run back to back at the end instead of draining the pool again and again.
 */
export async function runScheduled<T>(
  scenarios: readonly Scenario[],
  jobs: number,
  run: (scenario: Scenario) => Promise<T>,
): Promise<T[]> {
  const shared = scenarios.filter((s) => !s.alone);
  const lone = scenarios.filter((s) => s.alone);
  const results = new Map<Scenario, T>();
  const queue = [...shared];
  const lane = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) results.set(next, await run(next));
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, shared.length)) }, lane));
  for (const scenario of lone) results.set(scenario, await run(scenario));
  return scenarios.map((s) => results.get(s) as T);
}
