import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADERS } from '@kyc/contracts';
import { createSandbox } from '../../src/index.js';
import { type CliProcess, spawnCli } from '../cli-process.js';
import { tempDir } from '../helpers.js';

/** One request as the plain receiver got it. */
export interface PlainRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly id: string;
  readonly attempt: number;
  readonly at: number;
}

/** How the receiver answers one request: a status, or `hang` (never, until released). */
export type PlainAnswer = number | 'hang';

/**
 * A plain-HTTP server on loopback, the developer's local receiver: records every request byte
 * for byte and answers what `answer` says (200 by default). Hanging answers are kept until
 * `release` (or close).
 */
export async function startPlainReceiver(answer: (request: PlainRequest) => PlainAnswer = () => 200) {
  const requests: PlainRequest[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: PlainRequest = {
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        id: String(req.headers[HEADERS.webhookId]),
        attempt: Number(req.headers[HEADERS.webhookAttempt]),
        at: Date.now(),
      };
      requests.push(request);
      const verdict = answer(request);
      if (verdict === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(verdict, { 'content-type': 'application/json' }).end(JSON.stringify({ received: verdict === 200 }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://localhost:${port}/webhooks/kyc`,
    requests,
    /** Answers every hanging request with `status`. */
    release(status = 200) {
      for (const res of hanging.splice(0)) if (!res.destroyed) res.writeHead(status).end();
    },
    async close() {
      for (const res of hanging.splice(0)) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}
export type PlainReceiver = Awaited<ReturnType<typeof startPlainReceiver>>;

/** Users issued before the sandbox starts (an operator's `user add`). */
export interface SeedUser {
  readonly username: string;
  readonly password: string;
  readonly company: string;
}

/**
 * The sandbox as its own process (`kyc-sandbox start`), with the given users, on a sped-up
 * schedule (120×: retries after 0.5 s, 2.5 s and 7.5 s; the per-attempt deadline stays 25 s).
 */
export async function startSandboxProcess(
  users: readonly SeedUser[],
  timeScale = 120,
  extraArgs: readonly string[] = [],
) {
  const dir = tempDir('kyc-listen-');
  const seed = await createSandbox({ dataDir: dir.path });
  for (const user of users) await seed.addUser(user.username, user.password, { company: user.company });
  await seed.close();
  const server = spawnCli([
    'start',
    '--port',
    '0',
    '--data-dir',
    dir.path,
    '--time-scale',
    String(timeScale),
    ...extraArgs,
  ]);
  const [, url] = await server.waitFor(/listening on (https?:\/\/127\.0\.0\.1:\d+)/);
  return {
    url: url ?? '',
    process: server,
    async close() {
      server.child.kill('SIGTERM');
      await server.result();
      dir.remove();
    },
  };
}

/** The environment a developer sets once for `listen` and `trigger`. */
export const loginEnv = (service: string, user: SeedUser): Record<string, string> => ({
  KYC_SANDBOX_URL: service,
  KYC_SANDBOX_USER: user.username,
  KYC_SANDBOX_PASSWORD: user.password,
});

/** Starts `kyc-sandbox listen` and waits until it says it is ready. */
export async function startListener(service: string, user: SeedUser, forwardTo: string): Promise<CliProcess> {
  const listener = spawnCli(['listen', '--forward-to', forwardTo], { env: loginEnv(service, user) });
  await listener.waitFor(/^Ready! /m);
  return listener;
}

/** Runs `kyc-sandbox trigger …` to its end. */
export async function trigger(service: string, user: SeedUser, args: readonly string[]) {
  return spawnCli(['trigger', ...args], { env: loginEnv(service, user) }).result();
}

/** Logs in through the dashboard's form (CSRF cookie and token, Origin) and returns the login cookie. */
export async function dashboardLogin(service: string, user: SeedUser): Promise<string> {
  const page = await fetch(`${service}/login`);
  const csrfCookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const answer = await fetch(`${service}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: service, cookie: csrfCookie },
    body: new URLSearchParams({ _csrf: token, username: user.username, password: user.password }),
  });
  return (
    answer.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith('kyc_sandbox='))
      ?.split(';')[0] ?? ''
  );
}
