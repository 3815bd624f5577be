import { chromiumAvailable } from '@kyc/test-support';
import { describe, expect, it } from 'vitest';
import { PORTAL_API } from '../src/index.js';
import { AUTH_KEY, api, PASSWORD, USERNAME } from './helpers.js';
import { checkBothSizes, expectAccessible, loginInBrowser, logoutInBrowser } from './support/browser.js';
import { PortalInBrowser, portalInBrowser, XSS } from './support/portal-browser.js';

describe.skipIf(!(await chromiumAvailable()))('webhook portal in Chromium', { timeout: 60_000 }, () => {
  // The sandbox (signing every delivery), both receivers and Chromium: see support/portal-browser.ts.
  const world = portalInBrowser();

  let first: { id: string; shortKey: string };

  it('lists deliveries with text badges, the same rows as the JSON API, and filters from the URL', async () => {
    first = await world.finishSession();
    const second = await world.finishSession();
    await world.settled(first.id, 'delivered');
    await world.settled(second.id, 'delivered');
    await loginInBrowser(world.page, world.sandbox.url, USERNAME, PASSWORD);
    await world.page.getByRole('link', { name: 'Deliveries' }).click();
    await expect(world.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Deliveries');
    const links = await world.page.getByRole('row').getByRole('link').allTextContents();
    expect(links).toEqual((await world.apiList('')).deliveries.map((d) => d.sessionId));
    await expect(world.page.getByRole('row', { name: new RegExp(first.id) }).textContent()).resolves.toContain(
      'Delivered',
    );
    await checkBothSizes(world.page, 'portal-01-deliveries');

    // Keyboard only: type in the Session box and press Enter.
    await world.page.getByLabel('Session').focus();
    await world.page.keyboard.type(first.shortKey);
    await world.page.keyboard.press('Enter');
    await world.page.waitForURL(`**/dashboard/deliveries?status=all&session=${first.shortKey}**`);
    await expect(world.page.getByRole('row').getByRole('link').allTextContents()).resolves.toEqual([first.id]);
    await world.page.getByLabel('Status').selectOption({ label: 'Failed' });
    await world.page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(world.page.getByText('No deliveries match these filters.').isVisible()).resolves.toBe(true);
    // The UTC days the two were created on, not today's: the run may cross midnight.
    const days = (await world.apiList('')).deliveries.map((d) => d.createdAt.slice(0, 10)).sort();
    const [from, to] = [days[0], days.at(-1)];
    await world.page.goto(`${world.sandbox.url}/dashboard/deliveries?status=delivered&from=${from}&to=${to}`);
    await expect(world.page.getByLabel('Status').inputValue()).resolves.toBe('delivered');
    await expect(world.page.getByLabel('From').inputValue()).resolves.toBe(from);
    await expect(world.page.getByRole('row').getByRole('link').count()).resolves.toBe(2);
  });

  it('inspects a delivery: the request with the key masked, Copy body, every attempt, and Redeliver', async () => {
    await world.page.goto(`${world.sandbox.url}/dashboard/deliveries`);
    await world.page.getByRole('link', { name: first.id }).click();
    await expect(world.page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/^Delivery/);
    await expect(world.page.getByRole('row', { name: /authorization/ }).textContent()).resolves.toContain(
      `Bearer ••••${AUTH_KEY.slice(-4)}`,
    );
    expect(await world.page.content()).not.toContain(AUTH_KEY);
    await world.page.getByRole('button', { name: 'Copy body' }).click();
    await world.page.getByText('Body copied.').waitFor({ timeout: 5000 });
    const copied = await world.page.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(copied)).toMatchObject({ id: first.id, sessionId: first.id });
    await expect(world.page.locator('tr.attempt').count()).resolves.toBe(1);
    await checkBothSizes(world.page, 'portal-02-delivery');
    // On a phone every column of the attempt, Latency and Response included, is on screen.
    await world.page.setViewportSize({ width: 390, height: 844 });
    for (const label of ['Result', 'Latency', 'Response']) {
      const box = await world.page.locator(`tr.attempt td[data-label="${label}"]`).boundingBox();
      expect(box !== null && box.x >= 0 && box.x + box.width <= 390, `${label} within 390 px`).toBe(true);
    }
    await world.page.setViewportSize({ width: 1280, height: 800 });

    const form = world.page.locator('form[action$="/redeliver"]');
    const fields = {
      _csrf: (await form.locator('input[name=_csrf]').inputValue()) ?? '',
      _click: (await form.locator('input[name=_click]').inputValue()) ?? '',
    };
    const action = `${world.sandbox.url}${await form.getAttribute('action')}`;
    await world.page.getByRole('button', { name: 'Redeliver' }).click();
    await expect(world.page.getByRole('status').filter({ hasText: 'Redelivery queued' }).count()).resolves.toBe(1);
    // The same click sent again (a double submit, a retried request) queues nothing more.
    const repeat = await world.page.request.post(action, { form: fields, headers: { Origin: world.sandbox.url } });
    expect(repeat.status()).toBe(200);
    expect(await repeat.text()).toContain('Redelivery queued');
    await world.reloadUntil(async () => (await world.page.locator('tr.attempt').count()) === 2);
    await expect(world.page.getByText('Round 2 queued').count()).resolves.toBe(1);
    await expect(world.page.getByText(/redeliver asked by alice/).count()).resolves.toBe(1);
    await checkBothSizes(world.page, 'portal-03-redelivered');
  });

  it('sends test events to a failing and a healthy receiver, showing the answer (escaped) and the fix', async () => {
    await world.useUrl(`${world.hostile.url}/hook`);
    await world.page.getByRole('link', { name: 'Settings' }).click();
    await world.page.getByLabel('Payload shape').selectOption('v1');
    await world.page.getByRole('button', { name: 'Send test event' }).click();
    const answer = world.page.locator('#test-answer');
    await expect(answer.textContent()).resolves.toContain('HTTP 500');
    // The choice stays for the next send.
    await expect(world.page.getByLabel('Payload shape').inputValue()).resolves.toBe('v1');
    await expect(answer.textContent()).resolves.toContain('(v1 payload)');
    await expect(answer.locator('pre').textContent()).resolves.toBe(XSS);
    await expect(answer.textContent()).resolves.toMatch(/Your handler failed/);
    expect(await world.page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await expect(world.page.locator('img[src="x"]').count()).resolves.toBe(0);
    await checkBothSizes(world.page, 'portal-04-test-event-failing');

    await world.useUrl(world.healthy.url);
    await world.page.getByRole('link', { name: 'Settings' }).click();
    await world.page.getByRole('button', { name: 'Send test event' }).click();
    await expect(world.page.locator('#test-answer').textContent()).resolves.toMatch(/Delivered:\s*HTTP 200/);
    expect(world.healthy.events.some((e) => e.sessionId.startsWith('test_'))).toBe(true);
    await checkBothSizes(world.page, 'portal-05-test-event-healthy');
  });

  it('reveals the signing secret on its own page, after the password', async () => {
    await world.page.getByRole('link', { name: 'Settings' }).click();
    await world.page.getByRole('link', { name: 'Reveal…' }).click();
    await world.page.getByLabel('Password').fill(PASSWORD);
    await world.page.getByRole('button', { name: 'Reveal' }).click();
    // The one page allowed to show it: the scan at the end proves it is the only one.
    await expect(world.page.locator('#secret-secret-1').textContent()).resolves.toBe(world.signingSecret);
  });

  it('shows the failed test event’s XSS answer as text on its delivery page', async () => {
    await world.page.goto(`${world.sandbox.url}/dashboard/deliveries`);
    const testRow = world.page.getByRole('row', { name: /Test/ }).last();
    await testRow.getByRole('link').click();
    await expect(world.page.locator('tr.attempt pre').first().textContent()).resolves.toBe(XSS);
    expect(await world.page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await expect(world.page.locator('img[src="x"]').count()).resolves.toBe(0);
    await checkBothSizes(world.page, 'portal-04b-test-delivery-hostile-answer');
  });

  it('shows hostile filter values from a shared URL as text, and a bad one as a 400 naming the parameter', async () => {
    const hostile = '"><img src=x onerror="window.__xss=3"><script>window.__xss=4</script>';
    await world.page.goto(`${world.sandbox.url}/dashboard/deliveries?session=${encodeURIComponent(hostile)}`);
    await expect(world.page.getByLabel('Session').inputValue()).resolves.toBe(hostile);
    await expect(world.page.getByText('No deliveries match these filters.').isVisible()).resolves.toBe(true);
    const bad = await world.page.goto(`${world.sandbox.url}/dashboard/deliveries?from=${encodeURIComponent(hostile)}`);
    expect(bad?.status()).toBe(400);
    await expect(world.page.getByRole('alert').textContent()).resolves.toMatch(/from/);
    const forgedCursor = await world.page.goto(
      `${world.sandbox.url}/dashboard/deliveries?after=${encodeURIComponent(hostile)}`,
    );
    expect(forgedCursor?.status()).toBe(400);
    expect(await world.page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await expect(world.page.locator('img[src="x"]').count()).resolves.toBe(0);
    await checkBothSizes(world.page, 'portal-04c-bad-filter');
  });

  it('replays failed deliveries after confirmation, and says how many it queued', async () => {
    const since = new Date(Date.now() - 60_000).toISOString().slice(0, 16);
    await world.useUrl(`${world.hostile.url}/hook`);
    const failing = await world.finishSession();
    await world.settled(failing.id, 'failed');
    world.hostileStatus = 200;
    const expected = (await api(world.sandbox.url, 'GET', `${PORTAL_API.replayFailed}?since=${since}:00Z`)).json as {
      failed: number;
    };
    expect(expected.failed).toBeGreaterThanOrEqual(2); // this session and the failed test event
    await world.page.goto(`${world.sandbox.url}/dashboard/deliveries`);
    await world.page.getByLabel('Failed since (UTC)').fill(since);
    await world.page.getByRole('button', { name: 'Replay failed' }).click();
    await expect(world.page.getByText(`Replay ${expected.failed} failed deliveries`).count()).resolves.toBe(1);
    await checkBothSizes(world.page, 'portal-06-replay-confirm');
    await world.page.getByRole('button', { name: 'Confirm replay' }).click();
    await expect(world.page.getByRole('status').first().textContent()).resolves.toBe(
      `Replay queued ${expected.failed} failed deliveries for a new round of attempts. Below: those deliveries, their states updating live.`,
    );
    // What was queued, and only that, is on the page it lands on, and its row follows it to Delivered.
    await expect(world.page.getByText('No deliveries match these filters').count()).resolves.toBe(0);
    await expect(world.page.locator('tbody tr').count()).resolves.toBe(expected.failed);
    await expect(world.page.getByText('Only the deliveries this replay queued.').count()).resolves.toBe(1);
    await expect(world.page.getByRole('link', { name: 'Show all deliveries' }).count()).resolves.toBe(1);
    const replayed = world.page.getByRole('row', { name: new RegExp(failing.id) });
    await expect(replayed.count()).resolves.toBe(1);
    await checkBothSizes(world.page, 'portal-06c-replay-queued');
    await world.settled(failing.id, 'delivered');
    await replayed.getByText('Delivered').waitFor({ timeout: 10_000 });
    world.hostileStatus = 500;
  });

  it('updates rows and states live (server-sent events), without a reload', async () => {
    await world.useUrl(world.healthy.url);
    await world.page.goto(`${world.sandbox.url}/dashboard/deliveries`);
    await world.page.evaluate(() => {
      (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
    });
    const fresh = await world.finishSession();
    const row = world.page.getByRole('row', { name: new RegExp(fresh.id) });
    // The row appears with the first event the page hears of (Sending, or Delivered on a quick
    // machine) and then follows the delivery to Delivered, all in the same document.
    await row.waitFor({ timeout: 10_000 });
    await row.getByText('Delivered').waitFor({ timeout: 10_000 });
    expect(await world.page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(
      true,
    );
    await expect(world.page.locator('#live-status').textContent()).resolves.toMatch(/^Updated \d\d:\d\d:\d\d UTC\.$/);
    await checkBothSizes(world.page, 'portal-06b-live-update');
  });

  it('shows endpoint health as an SVG chart and a table, success rate, latency and the last error', async () => {
    await world.page.getByRole('link', { name: 'Endpoint health' }).click();
    await expect(world.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Endpoint health');
    await expect(world.page.getByRole('img', { name: 'Attempts per hour, last 24 hours' }).count()).resolves.toBe(1);
    await expect(world.page.getByRole('row', { name: /Success rate/ }).textContent()).resolves.toMatch(/\d+\.\d %/);
    await expect(world.page.getByRole('row', { name: /Latency p95/ }).textContent()).resolves.toMatch(/\d+ ms/);
    await expect(world.page.getByRole('row', { name: /Last error/ }).textContent()).resolves.toMatch(/HTTP 500/);
    // The chart's table is in the page for everyone (it was in a closed disclosure, hidden from
    // screen readers too): found by role without opening anything, in a focusable scroll region.
    await expect(world.page.getByRole('region', { name: 'The same numbers as a table' }).count()).resolves.toBe(1);
    // Only the hourly table's rows: the last error's time can read "…:00…" too.
    const hourly = world.page.getByRole('table', { name: 'Attempts per hour (UTC)' });
    await expect(hourly.locator('tbody tr').count()).resolves.toBe(24);
    await expect(hourly.locator('tbody tr').first().textContent()).resolves.toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:00/);
    await checkBothSizes(world.page, 'portal-07-health');
  });

  it('keeps companies apart and pages 50 at a time (Next page / Previous page)', async () => {
    const mine = (await world.apiList('')).deliveries[0]?.eventId ?? '';
    for (let i = 0; i < 53; i++) await world.finishSession(world.bob);
    await logoutInBrowser(world.page);
    await loginInBrowser(world.page, world.sandbox.url, 'bob', PASSWORD);
    await world.page.goto(`${world.sandbox.url}/dashboard/deliveries`);
    const links = world.page.getByRole('row').getByRole('link');
    await expect(links.count()).resolves.toBe(50);
    expect(await world.page.content()).not.toContain(first.id);
    await world.page.getByRole('link', { name: 'Next page' }).click();
    await expect(links.count()).resolves.toBe(3);
    await expect(world.page.getByRole('link', { name: 'Next page' }).count()).resolves.toBe(0);
    await world.page.getByRole('link', { name: 'Previous page' }).click();
    await expect(links.count()).resolves.toBe(50);
    await expect(links.allTextContents()).resolves.toEqual(
      (await world.apiList('', world.bob)).deliveries.map((d) => d.sessionId),
    );
    await checkBothSizes(world.page, 'portal-08-other-company');
    const foreign = await world.page.goto(`${world.sandbox.url}/dashboard/deliveries/${mine}`);
    expect(foreign?.status()).toBe(404);
    await expectAccessible(world.page);
    // Bob's replay sees none of alice's failed deliveries.
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    await world.page.goto(`${world.sandbox.url}/dashboard/deliveries`);
    await world.page.getByLabel('Failed since (UTC)').fill(since);
    await world.page.getByRole('button', { name: 'Replay failed' }).click();
    await expect(world.page.getByText('Replay 0 failed deliveries').count()).resolves.toBe(1);
  });

  it('refuses state changes without the CSRF token', async () => {
    const forged = await world.page.request.post(`${world.sandbox.url}/dashboard/deliveries/replay-failed/confirm`, {
      form: { since: '2020-01-01T00:00:00.000Z', _click: 'a'.repeat(22) },
      headers: { Origin: world.sandbox.url },
    });
    expect(forged.status()).toBe(403);
    const crossSite = await world.page.request.post(`${world.sandbox.url}/dashboard/settings/test-event`, {
      form: { shape: 'v1', _click: 'b'.repeat(22) },
      headers: { Origin: 'https://evil.example' },
    });
    expect(crossSite.status()).toBe(403);
  });

  it('never put the full Auth Key in a page, a fragment, a script or a log line, nor the signing secret outside the reveal', async () => {
    const loaded = await Promise.all(world.loaded);
    const texts = loaded.map((response) => response.text);
    expect(texts.filter((text) => text.includes('<h1>')).length).toBeGreaterThan(20);
    expect(texts.some((text) => text.includes(`••••${AUTH_KEY.slice(-4)}`))).toBe(true);
    for (const text of [...texts, ...world.logs]) expect(text).not.toContain(AUTH_KEY);
    // The reveal did show the secret, so the scan would see it anywhere else it leaked.
    const [reveals, others] = [
      loaded.filter(PortalInBrowser.isReveal),
      loaded.filter((r) => !PortalInBrowser.isReveal(r)),
    ];
    expect(reveals.some((response) => response.text.includes(world.signingSecret))).toBe(true);
    const leaks = [
      ...others.map((r) => ({ where: `${r.method} ${r.url}`, text: r.text })),
      ...world.logs.map((text) => ({ where: 'log', text })),
    ];
    expect(leaks.filter((leak) => leak.text.includes(world.signingSecret)).map((leak) => leak.where)).toEqual([]);
  });
});
