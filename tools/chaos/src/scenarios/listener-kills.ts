import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HEADERS, JSON_CONTENT_TYPE } from '@kyc/contracts';
import type { DeliveryRecord } from '@kyc/delivery-engine';
import { startSandbox } from '@kyc/sandbox';
import { auditDeliveries, type KillWindow } from '../support/audit.js';
import { between } from '../support/between.js';
import { CHAOS_KEY, type Receipt, startChaosReceiver } from '../support/chaos-receiver.js';
import { pause } from '../support/pause.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { type ChildScript, spawnScript } from '../support/spawn-script.js';

// 120×: retries 0.5, 2.5 and 7.5 s after each failure, a 25 s attempt deadline (the sandbox's
// own scaling), and a company without a URL keeps its events for its listener 10.5 s after it left.
const TIME_SCALE = 120;
const USER = { username: 'chaos', password: 'chaos listener passphrase', company: 'Chaos Onboarding' };
const STATUSES = ['APPROVED', 'REJECTED', 'PENDING', 'ERROR'] as const;
// An answer lost to a kill: the CLI got it from the receiver, then died before reporting it.
const IN_FLIGHT_BEFORE_KILL_MS = 2000;
const statusOf = (answer: Receipt['answer']) => (answer === 'reset_mid_body' ? 200 : answer);

export const listenerKills: Scenario = {
  name: 'listener-kills',
  title: 'kyc-sandbox listen between the sandbox and the receiver: SIGKILL of the CLI at random while events flow',
  breaks: ['ack-unseen'],
  async run(context: RunContext) {
    const full = context.mode === 'full';
    const kills = full ? 200 : 8;
    const invariants = new Invariants();
    const receiver = await startChaosReceiver({
      random: context.random,
      // No hanging answers: each would hold the drain for the 25 s deadline (scenario 4 covers them).
      faults: { reset: 0.02, resetMidBody: 0.01, hang: 0, error: 0.06 },
    });
    const caFile = join(context.dir, 'receiver-ca.pem');
    writeFileSync(caFile, receiver.certificate.cert);
    const running = await startSandbox({ dataDir: join(context.dir, 'sandbox'), port: 0, timeScale: TIME_SCALE });
    await running.sandbox.addUser(USER.username, USER.password, { company: USER.company });
    const authorization = `Basic ${Buffer.from(`${USER.username}:${USER.password}`).toString('base64')}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${running.url}${path}`, {
        method,
        headers: { authorization, [HEADERS.contentType]: JSON_CONTENT_TYPE },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    // The Auth Key, and no webhook URL: the laptop has none, the listener is the only way in.
    await call('PUT', '/sandbox/settings', { webhookUrl: null, authKey: CHAOS_KEY });

    const config = {
      service: running.url,
      username: USER.username,
      password: USER.password,
      forwardTo: `${receiver.origin.replace('127.0.0.1', 'localhost')}/webhooks/kyc`,
      breakWith: context.breakWith,
    };
    const spawnListener = () =>
      spawnScript('listen-cli', config, () => undefined, { env: { NODE_EXTRA_CA_CERTS: caFile } });
    const killWindows: KillWindow[] = [];
    let listener: ChildScript = spawnListener();
    await listener.waitFor('Ready!');

    // Sessions finished at a steady pace while the kills happen.
    const finished: string[] = [];
    let producing = true;
    const producer = (async () => {
      let n = 0;
      while (producing) {
        const status = STATUSES[n++ % STATUSES.length];
        const created = await call('POST', '/sandbox/sessions', { status, shape: 'both' });
        const id = String(created.json.id);
        const done = await call('POST', '/api/v1/kyc/session/finish', { sessionId: id });
        if (done.status === 200) finished.push(id);
        else invariants.check(false, 'a finish was refused', () => `${id}: ${done.status}`);
        await pause(between(context.random, 5, 30));
      }
    })();

    const started = Date.now();
    let killsDone = 0;
    let downMs = 0;
    let startupMs = 0;
    for (let k = 0; k < kills; k++) {
      await pause(between(context.random, 300, 2500));
      listener.kill('SIGKILL');
      const killedAt = Date.now();
      await listener.exited;
      killsDone++;
      killWindows.push({ from: killedAt - IN_FLIGHT_BEFORE_KILL_MS, to: killedAt + 100 });
      // Down for a moment, as a laptop that restarts the command.
      await pause(between(context.random, 0, 400));
      const restarting = Date.now();
      listener = spawnListener();
      await listener.waitFor('Ready!');
      downMs += Date.now() - killedAt;
      startupMs = Math.max(startupMs, Date.now() - restarting);
      if (k % 25 === 24) context.progress(`listener-kills: ${k + 1}/${kills} kills, ${finished.length} sessions`);
    }
    producing = false;
    await producer;
    const killPhaseMs = Date.now() - started;

    // The last listener stays: everything must end delivered, or failed after four attempts.
    const drainStarted = Date.now();
    const eventIds = new Map<string, string>();
    const records: DeliveryRecord[] = [];
    let lost = 0;
    for (const sessionId of finished) {
      const { json } = await call('GET', `/sandbox/sessions/${sessionId}/delivery`);
      if (json.state === 'not_sent' || typeof json.eventId !== 'string') {
        lost++;
        invariants.check(
          false,
          'lost: a finished session has no webhook in the engine',
          () => `${sessionId}: ${json.note}`,
        );
        continue;
      }
      eventIds.set(json.eventId, sessionId);
    }
    const deadline = Date.now() + 60_000;
    for (;;) {
      const pending = await running.sandbox.engine.listDeliveries({ state: 'pending', limit: 1 });
      if (pending.length === 0 || Date.now() > deadline) break;
      await pause(100);
    }
    for (const id of eventIds.keys()) {
      const record = await running.sandbox.engine.getDelivery(id);
      if (record !== undefined) records.push(record);
    }
    const drainMs = Date.now() - drainStarted;
    listener.kill('SIGKILL');
    await listener.exited;
    await running.close();
    await receiver.close();

    const audit = auditDeliveries(
      {
        records,
        acked: new Set(eventIds.keys()),
        receipts: receiver.receipts,
        handlerRuns: receiver.handlerRuns,
        killWindows,
        timeScale: TIME_SCALE,
        alwaysFailing: () => false,
      },
      invariants,
    );
    // Forwarded attempts are recorded even when their CLI dies (as connection_reset), so a
    // duplicate shows as a receipt whose answer the log does not hold: each must sit at a kill.
    let answeredButLost = 0;
    for (const record of records) {
      for (const receipt of receiver.receipts.filter((r) => r.id === record.id)) {
        const logged = record.attemptLog.find((a) => a.attempt === receipt.attempt);
        const answered = statusOf(receipt.answer);
        if (typeof answered !== 'number' || logged?.status === answered) continue;
        answeredButLost++;
        invariants.check(
          killWindows.some((w) => receipt.at >= w.from && receipt.at <= w.to),
          'an answer the log lacks was not in flight at a kill',
          () => `${record.id} attempt ${receipt.attempt}: answered ${answered}, logged ${logged?.outcome ?? 'nothing'}`,
        );
      }
    }
    const offline = records.reduce(
      (n, r) => n + r.attemptLog.filter((a) => a.errorMessage?.startsWith('no kyc-sandbox listen')).length,
      0,
    );
    return {
      figures: [
        ['CLI SIGKILLs', killsDone],
        ['sessions finished', finished.length],
        ['webhooks in the engine', records.length],
        ['lost (finished, no webhook or not in the store)', lost + (eventIds.size - records.length)],
        ['delivered', audit.delivered],
        ['failed after 4 attempts', audit.failed],
        ['requests the receiver saw', receiver.receipts.length],
        ['answers lost to a kill (the handler may have run; sent again)', answeredButLost],
        ['attempts while no listener was connected (failed, retried)', offline],
        ['handler runs', [...receiver.handlerRuns.values()].reduce((a, b) => a + b, 0)],
        ['  failed although the handler ran', audit.failedAfterRun],
        ['latest retry beyond its schedule (wall ms)', audit.maxLateMs],
        ['kill phase (s)', Math.round(killPhaseMs / 100) / 10],
        ['  of which no listener was connected (s)', Math.round(downMs / 100) / 10],
        ['  longest CLI start to Ready (ms)', startupMs],
        ['drain after the last kill (s)', Math.round(drainMs / 100) / 10],
      ],
      failures: invariants.failures,
    };
  },
};
