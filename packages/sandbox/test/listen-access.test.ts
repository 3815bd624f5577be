import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, spawnCli } from './cli-process.js';
import { api, eventually, tempDir } from './helpers.js';
import { loginEnv, startPlainReceiver, trigger } from './support/listen-fixtures.js';
import { ALICE, AUTH_KEY, as, BOB, eventOf, type ListenSuite, startListenSuite } from './support/listen-suite.js';

// Who may listen, and to what: separate processes and loopback servers, nothing mocked.
let suite: ListenSuite;
/** Acme's listener of the moment. */
let aliceListener: CliProcess;
beforeAll(async () => {
  suite = await startListenSuite();
  aliceListener = await suite.listen(ALICE, suite.receiver.url);
}, 60_000);
afterAll(() => suite?.close());

// CLI processes started one after another: a few seconds each on a quiet machine, up to 20 s a
// test beside the other stages of `pnpm test` (one such test timed out there at the default).
describe('kyc-sandbox listen and trigger: who gets what', { timeout: 60_000 }, () => {
  it("never forwards one company's deliveries to another company's listener", async () => {
    const alice = aliceListener;
    // Beta Lending has no listener and no URL: its event is not sent, and not to Acme's listener.
    const before = suite.receiver.requests.length;
    const lonely = await trigger(suite.sandbox.url, BOB, ['approved']);
    suite.printed.push(() => `${lonely.stdout}${lonely.stderr}`);
    expect(lonely.code).toBe(1);
    expect(lonely.stdout).toMatch(/no webhook: no webhook URL was configured/);
    const bobReceiver = await startPlainReceiver();
    try {
      const bob = await suite.listen(BOB, bobReceiver.url);
      // Beta Lending set no Auth Key: the banner says so, and where to set one.
      await bob.waitFor(/No Auth Key is set, so deliveries carry no Authorization header/);
      const bobEvent = await suite.triggered(BOB, ['approved']);
      const aliceEvent = await suite.triggered(ALICE, ['approved']);
      await eventually(() => (bobReceiver.requests.some((r) => r.id === bobEvent) ? true : undefined));
      await eventually(() => (suite.receiver.requests.some((r) => r.id === aliceEvent) ? true : undefined));
      expect(bobReceiver.requests.map((r) => r.id)).toEqual([bobEvent]);
      expect(suite.receiver.requests.slice(before).map((r) => r.id)).toEqual([aliceEvent]);
      expect(bob.output().stdout).not.toContain(aliceEvent);
      expect(alice.output().stdout).not.toContain(bobEvent);
      // Neither company sees the other's delivery.
      expect((await api(suite.sandbox.url, 'GET', `/sandbox/portal/deliveries/${aliceEvent}`, as(BOB))).status).toBe(
        404,
      );
    } finally {
      await bobReceiver.close();
    }
  }, 60_000);

  it('refuses a listener without valid credentials', async () => {
    for (const user of [
      { ...ALICE, password: 'wrong password entirely' },
      { ...ALICE, username: 'mallory' },
    ]) {
      const refused = suite.track(
        spawnCli(['listen', '--forward-to', suite.receiver.url], { env: loginEnv(suite.sandbox.url, user) }),
      );
      const { code, stderr } = await refused.result();
      expect(code).toBe(1);
      expect(stderr).toMatch(/refused the listener \(HTTP 401\): Send HTTP Basic credentials/);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
    // Acme's own listener is still the one connected.
    const state = (await api(suite.sandbox.url, 'GET', '/sandbox/portal/forwarding', as(ALICE))).json as {
      forwarding: { username: string } | null;
    };
    expect(state.forwarding?.username).toBe('alice');
  }, 60_000);

  it('lets the newest listener win and tells the older one, which exits cleanly', async () => {
    const older = aliceListener;
    const other = await startPlainReceiver();
    try {
      const newer = await suite.listen(ALICE, other.url);
      const { code, stdout } = await older.result();
      expect(code).toBe(0);
      expect(stdout).toMatch(/another kyc-sandbox listen for this company connected from .+ \(127\.0\.0\.1\)/);
      const id = await suite.triggered(ALICE, ['error']);
      await eventually(() => (other.requests.some((r) => r.id === id) ? true : undefined));
      expect(suite.receiver.requests.some((r) => r.id === id)).toBe(false);
      newer.child.kill('SIGINT');
      expect((await newer.result()).code).toBe(0);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('shows the Auth Key only as Bearer •••• and its last four characters', async () => {
    suite.answer(() => 401);
    const listener = await suite.listen(ALICE, suite.receiver.url);
    // The banner names the key before any delivery, masked the same way.
    await listener.waitFor(
      new RegExp(`Deliveries carry Authorization: Bearer ••••${AUTH_KEY.slice(-4).replace('$', '\\$')}: your receiver`),
    );
    const id = await suite.triggered(ALICE, ['approved']);
    await listener.waitFor(new RegExp(`${id}  .*→ 401`));
    await listener.waitFor(
      new RegExp(`This delivery carried Authorization: Bearer ••••${AUTH_KEY.slice(-4).replace('$', '\\$')}\\.`),
    );
    suite.answer(() => 200);
    expect(listener.output().stdout).toContain(`Bearer ••••${AUTH_KEY.slice(-4)}`);
    suite.assertNoAuthKeyPrinted();
  }, 60_000);

  it('logs in once, then listens and triggers with the saved token; logout revokes it', async () => {
    const dir = tempDir('kyc-login-');
    const env = { KYC_SANDBOX_CONFIG: join(dir.path, 'login.json') };
    const bobReceiver = await startPlainReceiver();
    try {
      const login = await spawnCli(['login', '--service', suite.sandbox.url, '--user', BOB.username], {
        stdin: `${BOB.password}\n`,
        env,
      }).result();
      expect(login.code, login.stderr).toBe(0);
      expect(login.stdout).toMatch(
        /^Logged in as bob \(Beta Lending\) at http:\/\/127\.0\.0\.1:\d+\.\nSaved to .*login\.json/,
      );
      expect(statSync(env.KYC_SANDBOX_CONFIG).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(readFileSync(env.KYC_SANDBOX_CONFIG, 'utf8')) as { token: string };
      expect(saved.token).toMatch(/^kycs_[\w-]{43}$/);
      expect(readFileSync(env.KYC_SANDBOX_CONFIG, 'utf8')).not.toContain(BOB.password);
      expect(`${login.stdout}${login.stderr}`).not.toContain(saved.token);
      // No --user, no password: the saved login is enough.
      const listener = suite.track(spawnCli(['listen', '--forward-to', bobReceiver.url], { env }));
      await listener.waitFor(/^Ready! Forwarding Beta Lending's webhooks/m);
      const triggered = await spawnCli(['trigger', 'approved', '--shape', 'v1'], { env }).result();
      expect(triggered.code, triggered.stderr).toBe(0);
      const id = eventOf(triggered.stdout);
      await eventually(() => (bobReceiver.requests.some((r) => r.id === id) ? true : undefined));
      // The token is the sandbox's own: the service API still wants the password.
      const service = await api(suite.sandbox.url, 'GET', '/api/v1/kyc/session/sess_unknown', {
        authorization: `Bearer ${saved.token}`,
      });
      expect(service.status).toBe(401);
      // And a token cannot make another one.
      const another = await api(suite.sandbox.url, 'POST', '/sandbox/cli-tokens', {
        authorization: `Bearer ${saved.token}`,
      });
      expect(another.status).toBe(403);
      listener.child.kill('SIGINT');
      expect((await listener.result()).code).toBe(0);
      const logout = await spawnCli(['logout'], { env }).result();
      expect(logout.stdout).toMatch(/^Logged out of http:\/\/127\.0\.0\.1:\d+\.$/m);
      expect(existsSync(env.KYC_SANDBOX_CONFIG)).toBe(false);
      // The revoked token no longer opens a listener.
      writeFileSync(env.KYC_SANDBOX_CONFIG, JSON.stringify(saved));
      const refused = await spawnCli(['listen', '--forward-to', bobReceiver.url], { env }).result();
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /refused the listener \(HTTP 401\): This kyc-sandbox login is unknown or was revoked/,
      );
    } finally {
      await bobReceiver.close();
      dir.remove();
    }
  }, 60_000);
});
