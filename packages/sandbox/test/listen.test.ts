import {
  AUTH_SCHEME,
  HEADERS,
  JSON_CONTENT_TYPE,
  WEBHOOK_USER_AGENT,
  webhookCombinedSchema,
  webhookStatusSchema,
  webhookV1Schema,
} from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliProcess } from './cli-process.js';
import { spawnCli } from './cli-process.js';
import { api, basicAuth, contract, eventually } from './helpers.js';
import {
  dashboardLogin,
  loginEnv,
  type PlainAnswer,
  type PlainReceiver,
  type SeedUser,
  startListener,
  startPlainReceiver,
  startSandboxProcess,
  trigger,
} from './support/listen-fixtures.js';

// The sandbox, every CLI and the receivers are separate processes or servers on loopback;
// nothing is mocked. The sandbox runs its schedule 120× faster (retries after 0.5, 2.5, 7.5 s).
const ALICE: SeedUser = { username: 'alice', password: 'correct horse battery staple', company: 'Acme Onboarding' };
const BOB: SeedUser = { username: 'bob', password: 'another long passphrase', company: 'Beta Lending' };
const AUTH_KEY = 'qT7#vLm2$Xw9pRz4!Kd8nB3eHs6';
/** The headers a delivery carries, and nothing else but HTTP's own. */
const EXPECTED_HEADERS = [
  HEADERS.contentType,
  HEADERS.userAgent,
  HEADERS.authorization,
  HEADERS.webhookId,
  HEADERS.webhookTimestamp,
  HEADERS.webhookAttempt,
  'traceparent',
  'host',
  'content-length',
  'connection',
].sort();

let sandbox: Awaited<ReturnType<typeof startSandboxProcess>>;
/** Everything any CLI printed, to check no Auth Key ever appears. */
const printed: (() => string)[] = [];
const track = (cli: CliProcess) => {
  printed.push(() => `${cli.output().stdout}${cli.output().stderr}`);
  return cli;
};
const started: CliProcess[] = [];
/** Acme's listener of the moment. */
let aliceListener: CliProcess;

/** A receiver whose answers a test can script per event. */
let script: (request: { id: string; attempt: number }) => PlainAnswer = () => 200;
let receiver: PlainReceiver;

const eventOf = (stdout: string) => /webhook (evt_\w+)/.exec(stdout)?.[1] ?? '';
const as = (user: SeedUser) => ({ authorization: basicAuth(user.username, user.password) });

async function listen(user: SeedUser, forwardTo: string) {
  const cli = track(await startListener(sandbox.url, user, forwardTo));
  started.push(cli);
  return cli;
}

async function triggered(user: SeedUser, args: readonly string[]) {
  const result = await trigger(sandbox.url, user, args);
  printed.push(() => `${result.stdout}${result.stderr}`);
  expect(result.code, result.stderr).toBe(0);
  return eventOf(result.stdout);
}

async function delivery(user: SeedUser, eventId: string) {
  return (await api(sandbox.url, 'GET', `/sandbox/portal/deliveries/${eventId}`, as(user))).json as {
    state: string;
    request: { url: string; toListener: boolean; body: string; bodyBytes: number };
    attemptLog: { attempt: number; outcome: string; status: number | null; forwardedTo: { host: string } | null }[];
  };
}

beforeAll(async () => {
  receiver = await startPlainReceiver((request) => script(request));
  sandbox = await startSandboxProcess([ALICE, BOB]);
  // Acme has an Auth Key but no webhook URL: the laptop has none to give.
  const saved = await api(sandbox.url, 'PUT', '/sandbox/settings', {
    ...as(ALICE),
    body: { webhookUrl: null, authKey: AUTH_KEY },
  });
  expect(saved.status).toBe(200);
}, 60_000);

afterAll(async () => {
  for (const cli of started) cli.child.kill('SIGKILL');
  await sandbox?.close();
  await receiver?.close();
});

describe('kyc-sandbox listen and trigger', () => {
  it('delivers a trigger of every status and shape once, with the exact headers and body', async () => {
    const listener = await listen(ALICE, receiver.url);
    aliceListener = listener;
    const forwarding = (await api(sandbox.url, 'GET', '/sandbox/portal/forwarding', as(ALICE))).json as {
      forwarding: { username: string; forwardTo: string; since: string; address: string };
    };
    expect(forwarding.forwarding).toMatchObject({ username: 'alice', forwardTo: receiver.url, address: '127.0.0.1' });
    const cases = ['approved', 'rejected', 'pending', 'error'].flatMap((status) =>
      ['v1', 'status', 'both'].map((shape) => ({ status, shape })),
    );
    const ids = new Map<string, { status: string; shape: string }>();
    for (const c of cases) ids.set(await triggered(ALICE, [c.status, '--shape', c.shape]), c);
    await eventually(() =>
      [...ids.keys()].every((id) => receiver.requests.some((r) => r.id === id)) ? true : undefined,
    );
    for (const [id, c] of ids) {
      const seen = receiver.requests.filter((r) => r.id === id);
      expect(seen, `${c.status}/${c.shape} arrives once`).toHaveLength(1);
      const [request] = seen;
      if (!request) continue;
      expect(request.path).toBe('/webhooks/kyc');
      expect(Object.keys(request.headers).sort()).toEqual(EXPECTED_HEADERS);
      expect(request.headers[HEADERS.authorization]).toBe(`${AUTH_SCHEME} ${AUTH_KEY}`);
      expect(request.headers[HEADERS.contentType]).toBe(JSON_CONTENT_TYPE);
      expect(request.headers[HEADERS.userAgent]).toBe(WEBHOOK_USER_AGENT);
      expect(request.headers[HEADERS.webhookAttempt]).toBe('1');
      const body = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
      const schema = { v1: webhookV1Schema, status: webhookStatusSchema, both: webhookCombinedSchema }[c.shape];
      expect(schema?.safeParse(body).success, `${c.shape} body`).toBe(true);
      if (c.shape !== 'v1') expect((body as { status?: string }).status).toBe(c.status.toUpperCase());
      contract.webhook({
        method: 'POST',
        headers: new Headers(request.headers as Record<string, string>),
        body: request.body.toString('utf8'),
      });
      // Byte for byte what the engine stored and the portal shows as sent.
      const detail = await eventually(async () => {
        const d = await delivery(ALICE, id);
        return d.state === 'delivered' ? d : undefined;
      });
      expect(request.body.byteLength).toBe(detail.request.bodyBytes);
      expect(JSON.parse(detail.request.body)).toEqual(body);
      expect(detail.request.toListener).toBe(true);
      expect(detail.attemptLog).toEqual([
        expect.objectContaining({
          attempt: 1,
          outcome: 'delivered',
          status: 200,
          forwardedTo: expect.objectContaining({ forwardTo: receiver.url }),
        }),
      ]);
      expect(listener.output().stdout).toMatch(new RegExp(`${id}  sess_\\w+  .*→ 200  \\d+ ms  attempt 1`));
    }
  }, 120_000);

  it('shows in the dashboard where deliveries are forwarded, and marks the forwarded attempts', async () => {
    const cookie = await dashboardLogin(sandbox.url, ALICE);
    const page = async (path: string) => (await fetch(`${sandbox.url}${path}`, { headers: { cookie } })).text();
    const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
    for (const path of ['/dashboard/deliveries', '/dashboard/settings']) {
      expect(text(await page(path))).toMatch(
        new RegExp(
          `Deliveries are forwarded to kyc-sandbox listen on .+ \\(127\\.0\\.0\\.1\\), run by alice, to ${receiver.url} on that machine, since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC`,
        ),
      );
    }
    const id = receiver.requests[0]?.id ?? '';
    const detail = text(await page(`/dashboard/deliveries/${id}`));
    expect(detail).toMatch(
      new RegExp(`HTTP 200 \\(delivered\\)Forwarded via kyc-sandbox listen on .+ to ${receiver.url}`),
    );
    expect(detail).toMatch(/made while no webhook URL was saved/);
  });

  it('shows a 500 then the retry that got 200 in the terminal', async () => {
    const listener = aliceListener;
    let calls = 0;
    script = () => (++calls === 1 ? 500 : 200);
    const id = await triggered(ALICE, ['pending', '--shape', 'status']);
    await listener.waitFor(new RegExp(`${id}  .*→ 200  \\d+ ms  attempt 2`));
    const out = listener.output().stdout;
    expect(out).toMatch(
      new RegExp(`${id}  sess_\\w+  PENDING\\s+→ 500  \\d+ ms  attempt 1\\n\\s+fix: Your handler failed \\(500\\)`),
    );
    expect(out).toMatch(/↻ retry: attempt 2 at \d\d:\d\d:\d\d/);
    expect((await delivery(ALICE, id)).attemptLog.map((a) => a.status)).toEqual([500, 200]);
    script = () => 200;
  }, 60_000);

  it('loses nothing when the CLI is killed mid-attempt and started again', async () => {
    const first = aliceListener;
    let held = '';
    script = (request) => {
      if (held === '') {
        held = request.id;
        return 'hang';
      }
      return 200;
    };
    const inFlight = await triggered(ALICE, ['approved']);
    await eventually(() => (held === inFlight ? true : undefined));
    first.child.kill('SIGKILL');
    await first.result();
    // The attempt the kill cut is recorded as failed, and retried on the schedule.
    await eventually(async () =>
      (await delivery(ALICE, inFlight)).attemptLog[0]?.outcome === 'connection_reset' ? true : undefined,
    );
    receiver.release(200);
    // Finished while no listener runs: made for the listener all the same, retried until one is back.
    const whileDown = await triggered(ALICE, ['rejected']);
    const restarted = await listen(ALICE, receiver.url);
    aliceListener = restarted;
    for (const id of [inFlight, whileDown]) {
      const detail = await eventually(async () => {
        const d = await delivery(ALICE, id);
        return d.state === 'delivered' ? d : undefined;
      }, 30_000);
      expect(detail.attemptLog.at(-1)).toMatchObject({ outcome: 'delivered', forwardedTo: expect.anything() });
      expect(detail.attemptLog.filter((a) => a.outcome === 'delivered')).toHaveLength(1);
    }
    // The only duplicate is the request the kill cut: attempt 1 of the event in flight.
    const seen = (id: string) => receiver.requests.filter((r) => r.id === id).map((r) => r.attempt);
    expect(seen(inFlight)[0]).toBe(1);
    expect(seen(inFlight)).toHaveLength(2);
    expect(seen(whileDown)).toHaveLength(1);
    expect(restarted.output().stdout).toMatch(new RegExp(`${whileDown}  .*→ 200`));
  }, 90_000);

  it("never forwards one company's deliveries to another company's listener", async () => {
    const alice = aliceListener;
    // Beta Lending has no listener and no URL: its event is not sent, and not to Acme's listener.
    const before = receiver.requests.length;
    const lonely = await trigger(sandbox.url, BOB, ['approved']);
    printed.push(() => `${lonely.stdout}${lonely.stderr}`);
    expect(lonely.code).toBe(1);
    expect(lonely.stdout).toMatch(/no webhook: no webhook URL was configured/);
    const bobReceiver = await startPlainReceiver();
    try {
      const bob = await listen(BOB, bobReceiver.url);
      const bobEvent = await triggered(BOB, ['approved']);
      const aliceEvent = await triggered(ALICE, ['approved']);
      await eventually(() => (bobReceiver.requests.some((r) => r.id === bobEvent) ? true : undefined));
      await eventually(() => (receiver.requests.some((r) => r.id === aliceEvent) ? true : undefined));
      expect(bobReceiver.requests.map((r) => r.id)).toEqual([bobEvent]);
      expect(receiver.requests.slice(before).map((r) => r.id)).toEqual([aliceEvent]);
      expect(bob.output().stdout).not.toContain(aliceEvent);
      expect(alice.output().stdout).not.toContain(bobEvent);
      // Neither company sees the other's delivery.
      expect((await api(sandbox.url, 'GET', `/sandbox/portal/deliveries/${aliceEvent}`, as(BOB))).status).toBe(404);
    } finally {
      await bobReceiver.close();
    }
  }, 60_000);

  it('refuses a listener without valid credentials', async () => {
    for (const user of [
      { ...ALICE, password: 'wrong password entirely' },
      { ...ALICE, username: 'mallory' },
    ]) {
      const refused = track(spawnCli(['listen', '--forward-to', receiver.url], { env: loginEnv(sandbox.url, user) }));
      const { code, stderr } = await refused.result();
      expect(code).toBe(1);
      expect(stderr).toMatch(/refused the listener \(HTTP 401\): Send HTTP Basic credentials/);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
    // Acme's own listener is still the one connected.
    const state = (await api(sandbox.url, 'GET', '/sandbox/portal/forwarding', as(ALICE))).json as {
      forwarding: { username: string } | null;
    };
    expect(state.forwarding?.username).toBe('alice');
  }, 60_000);

  it('lets the newest listener win and tells the older one, which exits cleanly', async () => {
    const older = aliceListener;
    const other = await startPlainReceiver();
    try {
      const newer = await listen(ALICE, other.url);
      const { code, stdout } = await older.result();
      expect(code).toBe(0);
      expect(stdout).toMatch(/another kyc-sandbox listen for this company connected from .+ \(127\.0\.0\.1\)/);
      const id = await triggered(ALICE, ['error']);
      await eventually(() => (other.requests.some((r) => r.id === id) ? true : undefined));
      expect(receiver.requests.some((r) => r.id === id)).toBe(false);
      newer.child.kill('SIGINT');
      expect((await newer.result()).code).toBe(0);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('shows the Auth Key only as Bearer •••• and its last four characters', async () => {
    script = () => 401;
    const listener = await listen(ALICE, receiver.url);
    const id = await triggered(ALICE, ['approved']);
    await listener.waitFor(new RegExp(`${id}  .*→ 401`));
    await listener.waitFor(
      new RegExp(`This delivery carried Authorization: Bearer ••••${AUTH_KEY.slice(-4).replace('$', '\\$')}\\.`),
    );
    script = () => 200;
    expect(listener.output().stdout).toContain(`Bearer ••••${AUTH_KEY.slice(-4)}`);
    for (const output of printed) {
      expect(output()).not.toContain(AUTH_KEY);
      expect(output()).not.toContain(AUTH_KEY.slice(0, 8));
    }
  }, 60_000);
});
