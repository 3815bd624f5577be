import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ActionResult, type DeliveryDetail, type EndpointHealth, PORTAL_API } from '../src/index.js';
import { AUTH_KEY, api, eventually } from './helpers.js';
import { portalApiWorld } from './support/portal-api.js';

// The sandbox (signing every delivery) and both receivers, with every answer kept: see support/portal-api.ts.
const world = portalApiWorld();

describe('portal JSON API over HTTP', () => {
  let delivered = '';

  it('lists a delivered webhook and finds it by session id and by short key', async () => {
    delivered = await world.finishSession();
    await world.settle(delivered, 'delivered');
    const page = await world.list('?status=delivered');
    const row = page.deliveries.find((d) => d.sessionId === delivered);
    expect(row).toMatchObject({
      state: 'delivered',
      attempts: 1,
      lastOutcome: 'delivered',
      lastStatus: 200,
      test: false,
    });
    const byShortKey = await world.list(`?session=${row?.shortKey}`);
    expect(byShortKey.deliveries.map((d) => d.sessionId)).toEqual([delivered]);
    expect((await world.list('?status=failed')).deliveries).toEqual([]);
    expect(page.filter).toEqual({ status: 'delivered', session: '', replay: '', from: '', to: '' });
  });

  it('filters by date (From/To, inclusive UTC days) and refuses bad filters with the parameter named', async () => {
    // The day a delivery was created on, not today's: the run may cross midnight UTC.
    const day = (await world.list('')).deliveries[0]?.createdAt.slice(0, 10);
    expect(day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const onThatDay = (await world.list(`?from=${day}&to=${day}`)).deliveries.map((d) => d.createdAt.slice(0, 10));
    expect(onThatDay.length).toBeGreaterThan(0);
    expect(new Set(onThatDay)).toEqual(new Set([day]));
    expect((await world.list('?to=2000-01-01')).deliveries).toEqual([]);
    for (const [query, named] of [
      ['?status=lost', 'status'],
      ['?from=yesterday', 'from'],
      ['?after=bm9wZQ', 'after'],
      ['?replay=x', 'replay'],
    ] as const) {
      const answer = await world.portal('GET', `${PORTAL_API.deliveries}${query}`);
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.json)).toContain(named);
    }
  });

  it('shows the exact request with the Auth Key masked to its last four characters, and every attempt', async () => {
    const page = await world.list(`?session=${delivered}`);
    const eventId = page.deliveries[0]?.eventId ?? '';
    const detail = (await world.portal('GET', `${PORTAL_API.deliveries}/${eventId}`)).json as DeliveryDetail;
    const headers = Object.fromEntries(detail.request.headers.map((h) => [h.name.toLowerCase(), h.value]));
    expect(headers.authorization).toBe(`Bearer ••••${AUTH_KEY.slice(-4)}`);
    expect(headers['webhook-id']).toBe(eventId);
    expect(headers['user-agent']).toBe('Service-Webhook/1.0');
    expect(detail.request).toMatchObject({ method: 'POST', url: world.healthy.url });
    expect(JSON.parse(detail.request.body)).toMatchObject({ id: delivered, sessionId: delivered });
    expect(detail.request.body).toContain('\n  "');
    expect(detail.attemptLog).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'delivered', status: 200, diagnosis: null }),
    ]);
    expect(detail.attemptLog[0]?.responseSnippet).toContain('"received":true');
  });

  it('keeps companies apart: another company sees none of these deliveries and gets 404 for one', async () => {
    const mine = await world.list(`?session=${delivered}`);
    const eventId = mine.deliveries[0]?.eventId ?? '';
    expect((await world.list('', world.bob)).deliveries).toEqual([]);
    expect((await world.list(`?session=${delivered}`, world.bob)).deliveries).toEqual([]);
    expect((await world.portal('GET', `${PORTAL_API.deliveries}/${eventId}`, { as: world.bob })).status).toBe(404);
    const forged = await world.portal('POST', `${PORTAL_API.deliveries}/${eventId}/redeliver`, {
      as: world.bob,
      key: randomUUID(),
    });
    expect(forged.status).toBe(404);
  });

  it('pages of 50 with next and previous cursors (keyset)', async () => {
    // Bob has no webhook URL: his finished sessions are recorded as not sent, without network.
    const ids: string[] = [];
    for (let i = 0; i < 53; i++) ids.push(await world.finishSession(world.bob));
    const first = await world.list('', world.bob);
    expect(first.deliveries).toHaveLength(50);
    expect(first.deliveries[0]?.sessionId).toBe(ids[52]);
    expect(first.prevCursor).toBeNull();
    expect(first.nextCursor).toBeTruthy();
    const second = await world.list(`?after=${first.nextCursor}`, world.bob);
    expect(second.deliveries.map((d) => d.sessionId)).toEqual(ids.slice(0, 3).reverse());
    expect(second.nextCursor).toBeNull();
    const back = await world.list(`?before=${second.prevCursor}`, world.bob);
    expect(back.deliveries.map((d) => d.sessionId)).toEqual(first.deliveries.map((d) => d.sessionId));
    expect(back.prevCursor).toBeNull();
    expect(second.deliveries[0]).toMatchObject({ state: 'not_sent', note: expect.stringMatching(/no webhook URL/) });
  });

  it('redelivers once per click through the engine queue and records who asked', async () => {
    const eventId = (await world.list(`?session=${delivered}`)).deliveries[0]?.eventId ?? '';
    const path = `${PORTAL_API.deliveries}/${eventId}/redeliver`;
    expect((await world.portal('POST', path)).status).toBe(400); // no Idempotency-Key
    const key = randomUUID();
    const first = await world.portal('POST', path, { key });
    const again = await world.portal('POST', path, { key });
    expect(first).toMatchObject({ status: 202, json: { action: 'redeliver', outcome: 'queued', repeated: false } });
    expect(again).toMatchObject({ status: 202, json: { action: 'redeliver', outcome: 'queued', repeated: true } });
    const detail = await eventually(async () => {
      const d = (await world.portal('GET', `${PORTAL_API.deliveries}/${eventId}`)).json as DeliveryDetail;
      return d.attemptLog.length === 2 && d.state === 'delivered' ? d : undefined;
    });
    expect(detail.redeliveries).toHaveLength(1);
    expect(detail.actions).toEqual([expect.objectContaining({ action: 'redeliver', username: 'alice' })]);
    // The same click again, once the round is over, still changes nothing.
    expect((await world.portal('POST', path, { key })).json).toMatchObject({ repeated: true });
    expect(
      ((await world.portal('GET', `${PORTAL_API.deliveries}/${eventId}`)).json as DeliveryDetail).redeliveries,
    ).toHaveLength(1);
    // A key reused for another delivery is refused.
    expect(
      (await world.portal('POST', `${PORTAL_API.replayFailed}`, { key, body: { since: new Date(0).toISOString() } }))
        .status,
    ).toBe(422);
  });

  it('refuses a state change sent as a cross-site form', async () => {
    const answer = await fetch(`${world.sandbox.url}${PORTAL_API.replayFailed}`, {
      method: 'POST',
      headers: {
        authorization: world.sandbox.basic,
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        'idempotency-key': randomUUID(),
      },
      body: 'since=2020-01-01T00:00:00Z',
    });
    expect(answer.status).toBe(403);
    const notJson = await fetch(`${world.sandbox.url}${PORTAL_API.replayFailed}`, {
      method: 'POST',
      headers: {
        authorization: world.sandbox.basic,
        'content-type': 'application/xml',
        'idempotency-key': randomUUID(),
      },
      body: '{"since":"2020-01-01T00:00:00Z"}',
    });
    expect(notJson.status).toBe(415);
  });

  it('replays every failed delivery since a time, once, and they are delivered', async () => {
    world.flakyStatus = 500;
    await api(world.sandbox.url, 'PUT', '/sandbox/settings', {
      body: { webhookUrl: `${world.flaky.url}/hook`, authKey: AUTH_KEY },
    });
    const since = new Date().toISOString();
    const failing = [await world.finishSession(), await world.finishSession()];
    for (const id of failing) await world.settle(id, 'failed');
    const failedRow = (await world.list(`?session=${failing[0]}`)).deliveries[0];
    expect(failedRow).toMatchObject({ attempts: 4, lastOutcome: 'server_error', lastStatus: 500 });

    world.flakyStatus = 200;
    const key = randomUUID();
    const replay = await world.portal('POST', PORTAL_API.replayFailed, { key, body: { since } });
    expect(replay).toMatchObject({ status: 202, json: { action: 'replay_failed', queued: 2, skipped: 0 } });
    for (const id of failing) await world.settle(id, 'delivered');
    // The replay's own list: exactly what it queued, now delivered; another click's key lists nothing.
    const queuedByIt = (await world.list(`?replay=${key}`)).deliveries;
    expect(queuedByIt.map((d) => d.sessionId).sort()).toEqual([...failing].sort());
    expect(queuedByIt.map((d) => d.state)).toEqual(['delivered', 'delivered']);
    expect((await world.list(`?replay=${randomUUID()}`)).deliveries).toEqual([]);
    expect((await world.list(`?replay=${key}`, world.bob)).deliveries).toEqual([]);
    expect((await world.portal('POST', PORTAL_API.replayFailed, { key, body: { since } })).json).toMatchObject({
      queued: 2,
      repeated: true,
    });
    const eventId = failedRow?.eventId ?? '';
    const detail = (await world.portal('GET', `${PORTAL_API.deliveries}/${eventId}`)).json as DeliveryDetail;
    expect(detail.attemptLog.map((a) => a.outcome)).toEqual([...Array(4).fill('server_error'), 'delivered']);
    expect(detail.redeliveries).toHaveLength(1);
    expect(detail.attemptLog[0]?.diagnosis?.hint).toBe('json');
  });

  it('sends a test event and shows the answer inline, with what to fix for a 204', async () => {
    world.flakyStatus = 204;
    const failing = await world.portal('POST', PORTAL_API.testEvents, { key: randomUUID(), body: { shape: 'v1' } });
    const result = failing.json as ActionResult & { repeated: boolean };
    expect(failing.status).toBe(200);
    expect(result).toMatchObject({ action: 'test_event', outcome: 'answered', shape: 'v1' });
    if (result.action !== 'test_event') throw new Error('unexpected action');
    expect(result.sessionId).toMatch(/^test_/);
    expect(result.attempt).toMatchObject({ status: 204, outcome: 'unexpected_2xx' });
    expect(result.attempt?.diagnosis?.message).toMatch(/only 200 counts as delivered.*return 200 explicitly/);
    const testRow = (await world.list(`?session=${result.sessionId}`)).deliveries[0];
    expect(testRow).toMatchObject({ test: true, eventId: result.eventId });

    await api(world.sandbox.url, 'PUT', '/sandbox/settings', { body: { webhookUrl: world.healthy.url } });
    const ok = (await world.portal('POST', PORTAL_API.testEvents, { key: randomUUID(), body: { shape: 'status' } }))
      .json;
    expect(ok).toMatchObject({ outcome: 'answered', attempt: { status: 200, outcome: 'delivered', diagnosis: null } });
    expect(world.healthy.events.some((e) => e.sessionId.startsWith('test_'))).toBe(true);

    const none = await world.portal('POST', PORTAL_API.testEvents, { as: world.bob, key: randomUUID(), body: {} });
    expect(none).toMatchObject({ status: 409, json: { error: { code: 'NO_WEBHOOK_URL' } } });
    const badShape = await world.portal('POST', PORTAL_API.testEvents, { key: randomUUID(), body: { shape: 'v2' } });
    expect(badShape.status).toBe(422);
  });

  it('reports endpoint health: 24 hourly buckets, success rate, p50/p95, last error with the fix', async () => {
    const health = (await world.portal('GET', PORTAL_API.health)).json as EndpointHealth;
    expect(health.hours).toHaveLength(24);
    const total = health.hours.reduce((n, h) => n + h.delivered + h.failed, 0);
    expect(total).toBe(health.attempts);
    expect(health.attempts).toBeGreaterThanOrEqual(12);
    expect(health.successRate).toBeGreaterThan(0);
    expect(health.successRate).toBeLessThan(1);
    expect(health.latencyMs.p50).toBeGreaterThanOrEqual(0);
    expect(health.latencyMs.p95).toBeGreaterThanOrEqual(health.latencyMs.p50 ?? 0);
    expect(health.lastError).toMatchObject({ outcome: 'unexpected_2xx', status: 204 });
    expect(health.lastError?.diagnosis?.message).toMatch(/return 200 explicitly/);
    expect(health.circuit.state).toBe('none');
    expect(health.endpoint).toEqual({ url: world.healthy.url, hasAuthKey: true });
    expect(health.retries.schedule).toMatch(/1 min, 5 min and 15 min/);
    const other = (await world.portal('GET', PORTAL_API.health, { as: world.bob })).json as EndpointHealth;
    expect(other.attempts).toBe(0);
    expect(other.successRate).toBeNull();
  });

  it('never shows or logs the full Auth Key or the signing secret', () => {
    expect(world.everyAnswer.length).toBeGreaterThan(20);
    for (const text of [...world.everyAnswer, ...world.logs])
      expect([AUTH_KEY, world.signingSecret].filter((v) => text.includes(v))).toEqual([]);
  });
});
