import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';

/**
 * The first line of the report: what ran where. The sandbox keeps its own copy of the engine
 * bench's header: importing across packages made the sandbox's declaration build write a
 * `.d.ts` into the engine's folder.
 */
export function benchHeader(title: string): string {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // Not a git checkout (a packed copy): the commit stays unknown.
  }
  const cpu = cpus();
  return (
    `# ${title} bench — node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, commit ${commit}, ` +
    `load average ${loadavg()[0]?.toFixed(1)} at start (a shared machine: compare ratios, not absolute figures)`
  );
}
