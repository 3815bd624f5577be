/**
 * Where a server's time goes, measured in ways the machine's load hardly moves: drives one bench
 * server (http-server.ts, in its own process) with a fixed number of requests after a warm-up and
 * prints its CPU µs per request (main thread and other threads apart), plus one of
 *   --count           promises, timers, listeners, heap bytes and objects allocated per request,
 *                     and the functions that allocate most (count-hooks.ts; slows the server ~10×);
 *   --cpu-prof DIR    a V8 .cpuprofile of the server (list its top frames with
 *                     ../delivery-engine/bench/top-frames.mjs);
 *   --perf FILE       `perf record -e cpu-clock -g` of the measured part: on-CPU samples (V8's own
 *                     sampler misattributes time when the machine is loaded); node runs with
 *                     --perf-basic-prof, so `perf report -i FILE` names JavaScript frames
 *                     (V8 also leaves an isolate-*-v8.log in the working directory);
 *   --callgrind FILE  instructions per request under valgrind, the main thread apart from the
 *                     others (the others compile and collect, and under valgrind V8 recompiles far
 *                     more than at full speed); requests ÷ 20, it runs ~50× slower;
 *   --strace FILE     `strace -c -f` of the measured part: system calls per request;
 *   --node=FLAG       a flag for the server's node (repeatable), e.g. --node=--trace-gc.
 * `pnpm bench profile <kind> [--requests N] [--warmup N] [options]` (kinds: see http-server.ts);
 * once bundled, `node .tmp/bench/profile-http.mjs …` runs it again without bundling.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { driveLoad, startBenchServer } from './bench-server.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '5000' },
    connections: { type: 'string', default: '16' },
    count: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    perf: { type: 'string' },
    callgrind: { type: 'string' },
    strace: { type: 'string' },
    node: { type: 'string', multiple: true, default: [] },
  },
});
const kind = positionals[0] ?? 'receiver';
const here = (name: string) => new URL(`./${name}`, import.meta.url).pathname;

function command(): string[] {
  const node: string[] = [...(values.node ?? [])];
  if (values.count) node.push('--import', here('count-hooks.mjs'));
  if (values['cpu-prof'] !== undefined) node.push('--cpu-prof', '--cpu-prof-dir', values['cpu-prof']);
  if (values.perf !== undefined) node.push('--perf-basic-prof', '--interpreted-frames-native-stack');
  if (values.callgrind === undefined) return [process.execPath, ...node];
  return [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    // One file per thread: V8's background threads are counted apart from the main thread.
    '--separate-threads=yes',
    `--callgrind-out-file=${values.callgrind}`,
    process.execPath,
    ...node,
  ];
}

/** Main-thread and other threads' instructions in the dump taken at the end (thread 1 runs JavaScript). */
function callgrindTotals(file: string): { main: number; others: number } {
  const totals = { main: 0, others: 0 };
  for (const name of readdirSync(dirname(file))) {
    if (!name.startsWith(`${basename(file)}.1-`)) continue;
    const ir = Number(readFileSync(join(dirname(file), name), 'utf8').match(/^summary: (\d+)/m)?.[1] ?? 0);
    if (Number(name.split('-').at(-1)) === 1) totals.main += ir;
    else totals.others += ir;
  }
  return totals;
}

const slow = values.callgrind === undefined ? 1 : 20;
const connections = Number(values.connections);
// Under valgrind the audit sink's writes (the thread pool's, run one thread at a time) can keep a
// request waiting past autocannon's 10 s; a lost request would end the run.
const timeout = values.callgrind === undefined ? undefined : 120;
const server = await startBenchServer(kind, command());
await driveLoad(kind, server.port, { amount: Math.ceil(Number(values.warmup) / slow), connections, timeout });
await server.mark();
if (values.node?.length) process.stderr.write('--- the measured part starts ---\n');
const pid = String(server.child.pid);
let recorder: ChildProcess | undefined;
if (values.perf !== undefined) {
  recorder = spawn('perf', ['record', '-e', 'cpu-clock', '-F', '4999', '-g', '-o', values.perf, '-p', pid], {
    stdio: 'inherit',
  });
} else if (values.strace !== undefined) {
  recorder = spawn('strace', ['-c', '-f', '-o', values.strace, '-p', pid], { stdio: 'inherit' });
}
if (recorder !== undefined) await new Promise((resolve) => setTimeout(resolve, 500));
if (values.callgrind !== undefined) execFileSync('callgrind_control', ['-i', 'on', pid]);
await driveLoad(kind, server.port, { amount: Math.ceil(Number(values.requests) / slow), connections, timeout });
if (values.callgrind !== undefined) {
  execFileSync('callgrind_control', ['-d', pid]);
  execFileSync('callgrind_control', ['-i', 'off', pid]);
}
recorder?.kill('SIGINT');
if (recorder !== undefined) await once(recorder, 'exit');
const report = await server.report();
await server.close();
console.log(
  `${kind}: ${report.requests} requests, server CPU ${report.cpuUs.toFixed(1)} µs/request ` +
    `(main thread ~${report.mainThreadUs.toFixed(1)}, other threads ~${report.otherThreadsUs.toFixed(1)})`,
);
for (const [name, value] of Object.entries(report.counts ?? {})) console.log(`  ${name}: ${value}`);
if (values.callgrind !== undefined) {
  const { main, others } = callgrindTotals(values.callgrind);
  const per = (ir: number) => (ir / report.requests).toFixed(0);
  console.log(`  instructions per request: main thread ${per(main)}, other threads ${per(others)}`);
}
