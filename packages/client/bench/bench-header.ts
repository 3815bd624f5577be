import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';

/**
 * The line every bench figure is read with: the machine (CPU, cores, load when the run began),
 * the runtime and the commit measured (`+changes` when the work tree differs from it).
 *
 * @example
 * console.log(benchHeader()); // "machine: AMD EPYC … × 2 (load 1.20 at start; shared), Node v24.21.0, commit 7217673"
 */
export function benchHeader(): string {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const commit = git(['rev-parse', '--short', 'HEAD']) || 'unknown';
  const changed = git(['status', '--porcelain', '--untracked-files=no']) === '' ? '' : ' +changes';
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `machine: ${cpu} × ${availableParallelism()} (load ${loadavg()[0]?.toFixed(2)} at start; shared), Node ${process.version}, commit ${commit}${changed}`;
}
