import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';

/** The first line of a bench report: what ran where (issue 15 asks for machine, Node version and commit). */
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
