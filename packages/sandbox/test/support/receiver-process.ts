import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const exampleDir = fileURLToPath(new URL('../../../../examples/node-http-receiver/', import.meta.url));

/** One audit entry as the receiver's audit trail wrote it (the fields these tests read). */
export interface AuditLine {
  readonly sessionId: string | null;
  readonly outcome: string;
  readonly httpStatus: number;
  readonly signatureVerified: boolean | null;
  readonly signingSecretLabel: string | null;
  readonly signatureHeaders: Readonly<Record<string, string | null>>;
}

function watch(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    output: () => ({ stdout, stderr }),
    async waitFor<T>(find: (stdout: string) => T | undefined, timeoutMs = 20_000): Promise<T> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = find(stdout);
        if (found !== undefined) return found;
        if (Date.now() > until || child.exitCode !== null) {
          throw new Error(`not found in the receiver's output; stdout: ${stdout}\nstderr: ${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * `test/fixtures/signed-receiver.mjs` in its own Node process, configured from `env` (KYC_AUTH_KEY,
 * KYC_SIGNING_SECRETS, KYC_SIGNING_SECRET_LABELS, TLS_*), run from `consumer`, the project
 * `installPackedReceiver` made: it loads the packed `@kyc/webhook-receiver` npm installed there.
 */
export async function startSignedReceiver(consumer: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['signed-receiver.mjs'], {
    cwd: consumer,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watched = watch(child);
  const lines = () =>
    watched
      .output()
      .stdout.split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { listening?: number; event?: string; audit?: AuditLine });
  const port = await watched.waitFor(() => lines().find((l) => l.listening !== undefined)?.listening);
  return {
    port,
    ...watched,
    /** The audit entry of the first delivery of `sessionId`, once written. */
    auditOf: (sessionId: string) =>
      watched.waitFor(
        () => lines().find((l) => l.audit?.sessionId === sessionId && l.audit.outcome !== 'duplicate')?.audit,
      ),
  };
}

/** A free loopback port (the example takes its port from PORT). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * `examples/node-http-receiver/server.ts` run as its README says (`tsx server.ts` with the
 * environment), in its own process: with KYC_SIGNING_SECRETS it verifies signatures, without it
 * the check is gone.
 */
export async function startExampleReceiver(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: exampleDir,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watched = watch(child);
  const url = await watched.waitFor((stdout) => /KYC webhooks on (\S+)/.exec(stdout)?.[1]);
  return { url, ...watched };
}
