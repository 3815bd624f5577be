import { expect } from 'vitest';
import type { CliProcess } from '../cli-process.js';
import { api, basicAuth } from '../helpers.js';
import {
  type PlainAnswer,
  type PlainReceiver,
  type SeedUser,
  startListener,
  startPlainReceiver,
  startSandboxProcess,
  trigger,
} from './listen-fixtures.js';

/** Two companies' dashboard users. */
export const ALICE: SeedUser = {
  username: 'alice',
  password: 'correct horse battery staple',
  company: 'Acme Onboarding',
};
export const BOB: SeedUser = { username: 'bob', password: 'another long passphrase', company: 'Beta Lending' };
/** Acme's Auth Key. */
export const AUTH_KEY = 'qT7#vLm2$Xw9pRz4!Kd8nB3eHs6';

export const eventOf = (stdout: string) => /webhook (evt_\w+)/.exec(stdout)?.[1] ?? '';
export const as = (user: SeedUser) => ({ authorization: basicAuth(user.username, user.password) });

/**
 * One listen suite: the sandbox as its own process with Acme and Beta Lending (Acme with an Auth
 * Key and no webhook URL: the laptop has none to give), a plain-HTTP receiver whose answers a
 * test scripts, and every CLI started, with all they printed (to check no Auth Key appears).
 */
export async function startListenSuite() {
  let script: (request: { id: string; attempt: number }) => PlainAnswer = () => 200;
  const receiver: PlainReceiver = await startPlainReceiver((request) => script(request));
  const sandbox = await startSandboxProcess([ALICE, BOB]);
  const saved = await api(sandbox.url, 'PUT', '/sandbox/settings', {
    ...as(ALICE),
    body: { webhookUrl: null, authKey: AUTH_KEY },
  });
  expect(saved.status).toBe(200);
  const printed: (() => string)[] = [];
  const started: CliProcess[] = [];
  const suite = {
    sandbox,
    receiver,
    printed,
    started,
    /** Sets how the receiver answers from now on. */
    answer(next: (request: { id: string; attempt: number }) => PlainAnswer) {
      script = next;
    },
    track(cli: CliProcess) {
      printed.push(() => `${cli.output().stdout}${cli.output().stderr}`);
      started.push(cli);
      return cli;
    },
    async listen(user: SeedUser, forwardTo: string) {
      return suite.track(await startListener(sandbox.url, user, forwardTo));
    },
    async triggered(user: SeedUser, args: readonly string[]) {
      const result = await trigger(sandbox.url, user, args);
      printed.push(() => `${result.stdout}${result.stderr}`);
      expect(result.code, result.stderr).toBe(0);
      return eventOf(result.stdout);
    },
    async delivery(user: SeedUser, eventId: string) {
      return (await api(sandbox.url, 'GET', `/sandbox/portal/deliveries/${eventId}`, as(user))).json as {
        state: string;
        request: { url: string; toListener: boolean; body: string; bodyBytes: number };
        attemptLog: { attempt: number; outcome: string; status: number | null; forwardedTo: { host: string } | null }[];
      };
    },
    /** No output of any CLI holds the Auth Key, or a long piece of it. */
    assertNoAuthKeyPrinted() {
      for (const output of printed) {
        expect(output()).not.toContain(AUTH_KEY);
        expect(output()).not.toContain(AUTH_KEY.slice(0, 8));
      }
    },
    async close() {
      for (const cli of started) cli.child.kill('SIGKILL');
      await sandbox.close();
      await receiver.close();
    },
  };
  return suite;
}
export type ListenSuite = Awaited<ReturnType<typeof startListenSuite>>;
