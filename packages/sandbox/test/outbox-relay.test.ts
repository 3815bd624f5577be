import { join } from 'node:path';
import { createDeliveryEngine, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveOutcome } from '../src/domain/outcome.js';
import { buildWebhookBody } from '../src/domain/webhook-body.js';
import { createOutboxRelay } from '../src/engine/outbox-relay.js';
import { type DeliveryView, SANDBOX_API, startSandbox } from '../src/index.js';
import { SandboxStore } from '../src/store/sandbox-store.js';
import { AUTH_KEY, api, eventually, PASSWORD, startTestReceiver, tempDir, USERNAME } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Finishes a session directly in the store: the outbox row is committed, the relay has not run (a crash right after the transaction). */
function finishWithoutRelay(dataDir: string, webhookUrl: string) {
  const store = new SandboxStore(join(dataDir, 'sandbox.db'), { keyFile: `${dataDir}.key` });
  const user = store.findUser(USERNAME);
  if (!user) throw new Error('user missing');
  store.updateWebhook(user.companyId, webhookUrl, AUTH_KEY, Date.now());
  const session = store.createSession(user.companyId, resolveOutcome({}), Date.now());
  // The body the service itself builds: the test receiver holds every delivery to the contract.
  store.finishSession(user.companyId, session.id, Date.now(), (finished, endedAt) =>
    JSON.stringify(buildWebhookBody(finished, endedAt, 'https://sandbox.invalid')),
  );
  store.close();
  return session.id;
}

describe('outbox relay', () => {
  it('delivers an event whose relay never ran (crash after the finish transaction) when the sandbox starts again', async () => {
    const receiver = await startTestReceiver();
    cleanups.push(() => receiver.close());
    const dir = tempDir();
    cleanups.push(dir.remove);
    const options = {
      dataDir: dir.path,
      timeScale: 600,
      allowLoopbackTargets: true,
      trustedCa: [receiver.certificate.cert],
    };
    const first = await startSandbox(options);
    await first.sandbox.addUser(USERNAME, PASSWORD);
    await first.close();

    const sessionId = finishWithoutRelay(dir.path, receiver.url);
    expect(receiver.requests).toHaveLength(0);

    const second = await startSandbox(options);
    cleanups.push(() => second.close());
    const view = await eventually(async () => {
      const answer = await api(second.url, 'GET', `${SANDBOX_API.sessions}/${sessionId}/delivery`);
      const delivery = answer.json as DeliveryView;
      return delivery.state === 'delivered' ? delivery : undefined;
    });
    expect(view.attempts).toHaveLength(1);
    expect(receiver.requests.filter((r) => r.body.includes(sessionId))).toHaveLength(1);
  });

  it('is idempotent by event id: an event enqueued before a crash is not queued twice', async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const store = new SandboxStore(join(dir.path, 'sandbox.db'), { keyFile: `${dir.path}.key` });
    const companyId = store.ensureCompany('Acme', Date.now());
    store.updateWebhook(companyId, 'https://127.0.0.1:9/hook', AUTH_KEY, Date.now());
    const session = store.createSession(companyId, resolveOutcome({}), Date.now());
    store.finishSession(companyId, session.id, Date.now(), () => JSON.stringify({ id: session.id }));
    const deliveryStore = sqliteDeliveryStore({ path: join(dir.path, 'deliveries.db') });
    const engine = createDeliveryEngine({ store: deliveryStore, allowPrivateNetworks: ['127.0.0.0/8'] });
    cleanups.push(async () => {
      await deliveryStore.close();
      store.close();
    });
    const [row] = store.outbox.unrelayed();
    if (!row?.url) throw new Error('outbox row missing');
    // The relay's enqueue succeeded, then the process died before markRelayed.
    await engine.enqueue({ id: row.eventId, url: row.url, body: row.body, authKey: AUTH_KEY });
    const relay = createOutboxRelay(store, engine, Date.now);
    await relay.relay();
    await relay.relay();
    expect(store.outbox.unrelayed()).toEqual([]);
    expect(store.outbox.forSession(session.id)?.relayError).toBeUndefined();
    expect((await engine.listDeliveries()).map((d) => d.id)).toEqual([row.eventId]);
  });

  it('records an event the engine refuses (URL no longer allowed) instead of retrying it forever', async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const first = await startSandbox({ dataDir: dir.path });
    await first.sandbox.addUser(USERNAME, PASSWORD);
    await first.close();
    // Saved while loopback targets were allowed; this sandbox runs without the flag.
    const sessionId = finishWithoutRelay(dir.path, 'https://127.0.0.1:9/hook');
    const second = await startSandbox({ dataDir: dir.path });
    cleanups.push(() => second.close());
    const view = (await api(second.url, 'GET', `${SANDBOX_API.sessions}/${sessionId}/delivery`)).json as DeliveryView;
    expect(view.state).toBe('not_sent');
    expect(view.note).toMatch(/127\.0\.0\.1/);
    expect(view.attempts).toEqual([]);
  });
});
