import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (CLK_TCK, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system, µs) a process has used so far, from /proc; 0 once it is gone. */
export function processCpuUs(pid: number): number {
  try {
    // The command name may hold spaces: the fields start after its closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU time (µs) of the children a process has waited for (a server's exited workers); 0 once it is gone. */
function reapedChildrenCpuUs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[13]) + Number(fields[14])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU time (µs) used so far by every process of the local Postgres server (backends, WAL writer,
 * …), including those that have exited: the postmaster's reaped-children time holds theirs, so a
 * backend or autovacuum worker ending during a run does not take its CPU out of the sum.
 */
export function postgresCpuUs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith('postgres')) continue;
    } catch {
      continue;
    }
    total += processCpuUs(Number(entry)) + reapedChildrenCpuUs(Number(entry));
  }
  return total;
}
