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
import { api, contract, eventually } from './helpers.js';
import { dashboardLogin } from './support/listen-fixtures.js';
import { ALICE, AUTH_KEY, as, type ListenSuite, startListenSuite } from './support/listen-suite.js';

// The sandbox, every CLI and the receivers are separate processes or servers on loopback;
// nothing is mocked. The sandbox runs its schedule 120× faster (retries after 0.5, 2.5, 7.5 s).
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

let suite: ListenSuite;
/** Acme's listener of the moment. */
let aliceListener: CliProcess;
beforeAll(async () => {
  suite = await startListenSuite();
}, 60_000);
afterAll(() => suite?.close());

// Each trigger is a CLI process of its own: the first test starts twelve, one after the other
// (14.5 s in a fresh-clone CI run, where the default 20 s left too little room on a busier machine).
describe('kyc-sandbox listen and trigger: deliveries', { timeout: 60_000 }, () => {
  it('delivers a trigger of every status and shape once, with the exact headers and body', async () => {
    const listener = await suite.listen(ALICE, suite.receiver.url);
    aliceListener = listener;
    const forwarding = (await api(suite.sandbox.url, 'GET', '/sandbox/portal/forwarding', as(ALICE))).json as {
      forwarding: { username: string; forwardTo: string; since: string; address: string };
    };
    expect(forwarding.forwarding).toMatchObject({
      username: 'alice',
      forwardTo: suite.receiver.url,
      address: '127.0.0.1',
    });
    const cases = ['approved', 'rejected', 'pending', 'error'].flatMap((status) =>
      ['v1', 'status', 'both'].map((shape) => ({ status, shape })),
    );
    const ids = new Map<string, { status: string; shape: string }>();
    for (const c of cases) ids.set(await suite.triggered(ALICE, [c.status, '--shape', c.shape]), c);
    await eventually(() =>
      [...ids.keys()].every((id) => suite.receiver.requests.some((r) => r.id === id)) ? true : undefined,
    );
    for (const [id, c] of ids) {
      const seen = suite.receiver.requests.filter((r) => r.id === id);
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
        const d = await suite.delivery(ALICE, id);
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
          forwardedTo: expect.objectContaining({ forwardTo: suite.receiver.url }),
        }),
      ]);
      expect(listener.output().stdout).toMatch(new RegExp(`${id}  sess_\\w+  .*→ 200  \\d+ ms  attempt 1`));
    }
  }, 120_000);

  it('shows in the dashboard where deliveries are forwarded, and marks the forwarded attempts', async () => {
    const cookie = await dashboardLogin(suite.sandbox.url, ALICE);
    const page = async (path: string) => (await fetch(`${suite.sandbox.url}${path}`, { headers: { cookie } })).text();
    const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
    for (const path of ['/dashboard/deliveries', '/dashboard/settings']) {
      expect(text(await page(path))).toMatch(
        new RegExp(
          `Deliveries are forwarded to kyc-sandbox listen on .+ \\(127\\.0\\.0\\.1\\), run by alice, to ${suite.receiver.url} on that machine, since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC`,
        ),
      );
    }
    const id = suite.receiver.requests[0]?.id ?? '';
    const detail = text(await page(`/dashboard/deliveries/${id}`));
    expect(detail).toMatch(
      new RegExp(`HTTP 200 \\(delivered\\)Forwarded via kyc-sandbox listen on .+ to ${suite.receiver.url}`),
    );
    expect(detail).toMatch(/made while no webhook URL was saved/);
  });

  it('shows a 500 then the retry that got 200 in the terminal', async () => {
    const listener = aliceListener;
    let calls = 0;
    suite.answer(() => (++calls === 1 ? 500 : 200));
    const id = await suite.triggered(ALICE, ['pending', '--shape', 'status']);
    await listener.waitFor(new RegExp(`${id}  .*→ 200  \\d+ ms  attempt 2`));
    const out = listener.output().stdout;
    expect(out).toMatch(
      new RegExp(`${id}  sess_\\w+  PENDING\\s+→ 500  \\d+ ms  attempt 1\\n\\s+fix: Your handler failed \\(500\\)`),
    );
    expect(out).toMatch(/↻ retry: attempt 2 at \d\d:\d\d:\d\d/);
    // The terminal prints the local answer before the engine has recorded it: wait for the record.
    const statuses = await eventually(async () => {
      const log = (await suite.delivery(ALICE, id)).attemptLog;
      return log.length === 2 ? log.map((a) => a.status) : undefined;
    });
    expect(statuses).toEqual([500, 200]);
    suite.answer(() => 200);
  }, 60_000);

  it('loses nothing when the CLI is killed mid-attempt and started again', async () => {
    const first = aliceListener;
    let held = '';
    suite.answer((request) => {
      if (held === '') {
        held = request.id;
        return 'hang';
      }
      return 200;
    });
    const inFlight = await suite.triggered(ALICE, ['approved']);
    await eventually(() => (held === inFlight ? true : undefined));
    first.child.kill('SIGKILL');
    await first.result();
    // The attempt the kill cut is recorded as failed, and retried on the schedule.
    await eventually(async () =>
      (await suite.delivery(ALICE, inFlight)).attemptLog[0]?.outcome === 'connection_reset' ? true : undefined,
    );
    suite.receiver.release(200);
    // Finished while no listener runs: made for the listener all the same, retried until one is back.
    const whileDown = await suite.triggered(ALICE, ['rejected']);
    const restarted = await suite.listen(ALICE, suite.receiver.url);
    aliceListener = restarted;
    for (const id of [inFlight, whileDown]) {
      const detail = await eventually(async () => {
        const d = await suite.delivery(ALICE, id);
        return d.state === 'delivered' ? d : undefined;
      }, 30_000);
      expect(detail.attemptLog.at(-1)).toMatchObject({ outcome: 'delivered', forwardedTo: expect.anything() });
      expect(detail.attemptLog.filter((a) => a.outcome === 'delivered')).toHaveLength(1);
    }
    // The only duplicate is the request the kill cut: attempt 1 of the event in flight.
    const seen = (id: string) => suite.receiver.requests.filter((r) => r.id === id).map((r) => r.attempt);
    expect(seen(inFlight)[0]).toBe(1);
    expect(seen(inFlight)).toHaveLength(2);
    expect(seen(whileDown)).toHaveLength(1);
    expect(restarted.output().stdout).toMatch(new RegExp(`${whileDown}  .*→ 200`));
  }, 90_000);

  it('never printed the Auth Key', () => {
    suite.assertNoAuthKeyPrinted();
  });
});
