import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** The slot turnaround a run produced, at the receiver (ms). */
export interface Turnaround {
  readonly p50: number;
  readonly p99: number;
  readonly samples: number;
}

/** The bench's receiver process (receiver-process.ts), asked over IPC one question at a time. */
export interface BenchReceiver {
  readonly url: string;
  readonly pid: number;
  count(): Promise<number>;
  cpuUs(): Promise<number>;
  resetTurnaround(): Promise<void>;
  turnaround(): Promise<Turnaround>;
  close(): void;
}

export async function startBenchReceiver(tls: { key: string; cert: string }): Promise<BenchReceiver> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./receiver-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', '--conditions=@kyc/source'],
    env: { ...process.env, KYC_BENCH_TLS: JSON.stringify(tls) },
  });
  const ask = async <T>(question: string): Promise<T> => {
    child.send(question);
    return (await once(child, 'message'))[0] as T;
  };
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  return {
    url: `https://127.0.0.1:${port}/hook`,
    pid: child.pid ?? 0,
    count: async () => (await ask<{ count: number }>('count')).count,
    cpuUs: async () => (await ask<{ cpuUs: number }>('cpu')).cpuUs,
    resetTurnaround: async () => void (await ask('turnaround-reset')),
    turnaround: () => ask<Turnaround>('turnaround'),
    close: () => child.send('exit'),
  };
}
