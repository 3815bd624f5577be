import { type ChildProcess, spawn, spawnSync } from 'node:child_process';

/** One command line of a README or doc, as a reader would paste it (the trailing `# …` cut off). */
export interface DocumentedLine {
  readonly file: string;
  readonly line: string;
}

/** How the documented-commands test runs a line; each kind has its own step there. */
export type LineKind = 'usage' | 'user-add' | 'start' | 'listen' | 'trigger' | 'audit-verify';

const KINDS: readonly (readonly [LineKind, RegExp])[] = [
  ['usage', /^npx (@kyc\/sandbox|-p @kyc\/webhook-receiver kyc-audit) --help$/],
  ['user-add', /^npx @kyc\/sandbox user add [a-z]+$/],
  ['start', /^npx @kyc\/sandbox start\b/],
  ['listen', /^npx @kyc\/sandbox listen\b/],
  ['trigger', /^npx @kyc\/sandbox trigger\b/],
  // The directory the docs' `jsonlAuditSink({ directory })` example writes to.
  ['audit-verify', /^npx -p @kyc\/webhook-receiver kyc-audit verify \/var\/lib\/kyc\/audit$/],
];

/** Which step runs the line as written, or undefined when none does. */
export function kindOf(line: string): LineKind | undefined {
  return KINDS.find(([, pattern]) => pattern.test(line))?.[0];
}

/**
 * The documented lines no test can run as written, each with why. A new documented line that
 * is neither run (kindOf) nor listed here fails the test, so this list is a decision, not a
 * leftover.
 */
export const NOT_RUNNABLE: Readonly<Record<string, string>> = {
  'npx @kyc/sandbox check-endpoint https://your.host/kyc/webhook --auth-key "$KYC_AUTH_KEY"':
    "the reader's own public receiver URL and its Auth Key",
  'npx @kyc/sandbox login --service https://kyc-sandbox.your-team.example --user alice':
    "the reader's team's shared sandbox; the test logs in to the sandbox it started instead (`login --user alice`, the default service), then runs listen and trigger as written",
  'npx -p @kyc/webhook-receiver kyc-audit verify /var/lib/kyc/audit --head 1234:9f2c…':
    'a head the reader recorded earlier (the … elides its hash); the test runs --head with the head that verifying the directory printed',
  'npx -p @kyc/webhook-receiver kyc-audit verify webhook-audit-000000001001-20261125.jsonl --after 1000:7a1e…':
    "a later file of the reader's log and the head of the files before it (the … elides the hash)",
  'npx -p @kyc/webhook-receiver kyc-audit verify --postgres "$DATABASE_URL" [--table kyc_webhook_audit]':
    "the reader's database (and `[…]` marks an optional flag)",
};

/** The distinct lines of one kind (a line documented in two files runs once), in document order. */
export function linesOf(documented: readonly DocumentedLine[], kind: LineKind): string[] {
  return [...new Set(documented.filter(({ line }) => kindOf(line) === kind).map(({ line }) => line))];
}

export interface ForegroundRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a line through `sh -c` (so quotes and `$VAR` work as in the reader's shell), to its end. */
export function runLine(line: string, cwd: string, env: NodeJS.ProcessEnv, input = ''): ForegroundRun {
  const run = spawnSync('sh', ['-c', line], { cwd, env, input, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A long-running documented line (`start`, `listen`) with its output so far. */
export interface Background {
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects on exit or after `ms`. */
  waitFor(pattern: RegExp, ms: number): Promise<RegExpMatchArray>;
  /** Ctrl-C, as the reader stops it; the whole process group, then SIGKILL if it lingers. */
  stop(): Promise<number | null>;
}

/**
 * Starts a line in its own process group: `npx` starts the CLI as a child, and Ctrl-C in a
 * terminal reaches both, so the test signals the group as the terminal would.
 */
export function startLine(line: string, cwd: string, env: NodeJS.ProcessEnv): Background {
  const child: ChildProcess = spawn('sh', ['-c', line], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exitCode: number | null | undefined;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    notify();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    notify();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code, signal) => {
      exitCode = code ?? (signal === null ? null : 128);
      notify();
      resolve(exitCode);
    });
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  return {
    output: () => output,
    waitFor(pattern, ms) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match !== null) done(() => resolve(match));
          else if (exitCode !== undefined) done(() => reject(new Error(`\`${line}\` exited ${exitCode}:\n${output}`)));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`no ${pattern} in ${ms} ms from \`${line}\`:\n${output}`))),
          ms,
        );
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    async stop() {
      if (exitCode !== undefined) return exitCode;
      signalGroup('SIGINT');
      const late = setTimeout(() => signalGroup('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(late);
      // npx's child may outlive the shell; whatever is left of the group goes too.
      signalGroup('SIGKILL');
      return code;
    },
  };
}
