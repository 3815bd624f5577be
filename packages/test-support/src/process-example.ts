import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { RecordedDecision, StartedExample } from './receiver-example-suite.js';

/** How to start an example as its own process. */
export interface ProcessExampleOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Added to a minimal environment (PATH, HOME) — nothing else of the test's leaks in. */
  readonly env: Readonly<Record<string, string>>;
  /** How long the process may take to print where it listens. Default 30 s. */
  readonly startTimeoutMs?: number;
  /** The webhook path, for a server whose listening line names only its origin (`next start`). */
  readonly path?: string;
}

const QUIET_MS = 100;
const LISTENING = /https?:\/\/[^\s/]+:(\d+)(\/\S*)?/;

function isDecision(value: unknown): value is RecordedDecision {
  return typeof value === 'object' && value !== null && 'sessionId' in value && 'action' in value;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts an example on its own runtime and waits for the line where it says where it listens
 * (`… http://host:port/path`). Every later stdout line that is a JSON decision goes to
 * `onDecision`: the examples log their decisions as JSON lines, as a production service would.
 * Resolves to the URL on 127.0.0.1 and a `close` that ends the process.
 */
export function startProcessExample(
  options: ProcessExampleOptions,
  onDecision: (decision: RecordedDecision) => void,
): Promise<StartedExample> {
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let lastLineAt = Date.now();
  // Quiet for a while after the answers: whatever the handler logged has been read.
  let closing = false;
  const settle = async () => {
    while (Date.now() - lastLineAt < QUIET_MS) await new Promise((done) => setTimeout(done, QUIET_MS));
    // A process that died under the suite explains the failures that follow: say so, with its output.
    if (!closing && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`${options.command} ${options.args.join(' ')} exited during the suite:\n${output.join('\n')}`);
    }
  };
  const close = () => {
    closing = true;
    return stop(child);
  };
  return new Promise((resolve, reject) => {
    let url: string | undefined;
    const fail = (reason: string) => {
      clearTimeout(timer);
      void stop(child);
      reject(new Error(`${options.command} ${options.args.join(' ')}: ${reason}\n${output.join('\n')}`));
    };
    const timer = setTimeout(() => fail('did not say where it listens in time'), options.startTimeoutMs ?? 30_000);
    createInterface({ input: child.stderr }).on('line', (line) => output.push(line));
    createInterface({ input: child.stdout }).on('line', (line) => {
      output.push(line);
      lastLineAt = Date.now();
      if (url === undefined) {
        const match = LISTENING.exec(line);
        const path = match?.[2] ?? options.path;
        if (match === null || path === undefined) return;
        url = `http://127.0.0.1:${match[1]}${path}`;
        clearTimeout(timer);
        resolve({ url, close, settle });
        return;
      }
      if (!line.startsWith('{')) return;
      try {
        const value: unknown = JSON.parse(line);
        if (isDecision(value)) onDecision(value);
      } catch {
        // A log line that only looks like JSON is not a decision.
      }
    });
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code, signal) => {
      if (url === undefined) fail(`exited (${signal ?? code}) before listening`);
    });
  });
}
