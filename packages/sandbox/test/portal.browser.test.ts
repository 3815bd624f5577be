import { chromiumAvailable, createTestCertificate } from '@kyc/test-support';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryPage, PORTAL_API } from '../src/index.js';
import { listen } from '../src/server/listen.js';
import {
  AUTH_KEY,
  api,
  basicAuth,
  eventually,
  PASSWORD,
  startTestReceiver,
  startTestSandbox,
  USERNAME,
} from './helpers.js';
import { checkBothSizes, expectAccessible, launchBrowser, loginInBrowser, logoutInBrowser } from './support/browser.js';

// What a hostile receiver answers; the portal shows it as text, never as markup.
const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
let healthy: Awaited<ReturnType<typeof startTestReceiver>>;
let hostile: Awaited<ReturnType<typeof listen>>;
let hostileStatus = 500;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
const bob = basicAuth('bob', PASSWORD);
/** Every log line of the sandbox and every page, fragment and script the browser loaded from it. */
const logs: string[] = [];
const loaded: Promise<string>[] = [];

async function finishSession(as?: string): Promise<{ id: string; shortKey: string }> {
  const auth = as ? { authorization: as } : {};
  const created = (await api(sandbox.url, 'POST', '/sandbox/sessions', { body: {}, ...auth })).json as {
    id: string;
    shortKey: string;
  };
  await api(sandbox.url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId: created.id }, ...auth });
  return created;
}
const apiList = async (query: string, as = sandbox.basic) =>
  (await api(sandbox.url, 'GET', `${PORTAL_API.deliveries}${query}`, { authorization: as })).json as DeliveryPage;
const settled = (sessionId: string, state: string) =>
  eventually(async () => ((await apiList(`?session=${sessionId}`)).deliveries[0]?.state === state ? true : undefined));
const useUrl = (url: string) =>
  api(sandbox.url, 'PUT', '/sandbox/settings', { body: { webhookUrl: url, authKey: AUTH_KEY } });
/** Reloads until `check` holds (for pages that are not live). */
async function reloadUntil(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100 && !(await check()); i++) {
    await page.waitForTimeout(100);
    await page.reload();
  }
  expect(await check()).toBe(true);
}

describe.skipIf(!(await chromiumAvailable()))('webhook portal in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    const certificate = await createTestCertificate(['127.0.0.1', 'localhost']);
    healthy = await startTestReceiver({ certificate });
    hostile = await listen(() => new Response(hostileStatus === 200 ? '{"ok":true}' : XSS, { status: hostileStatus }), {
      port: 0,
      host: '127.0.0.1',
      tls: certificate,
    });
    sandbox = await startTestSandbox({
      ca: certificate.cert,
      logger: { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
    });
    await sandbox.running.sandbox.addUser('bob', PASSWORD, { company: 'Other Company' });
    await useUrl(healthy.url);
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sandbox.url });
    page = browser.page;
    page.on('response', (response) => {
      const type = response.headers()['content-type'] ?? '';
      if (!response.url().startsWith(sandbox.url) || !/html|json|javascript/.test(type)) return;
      loaded.push(response.text().catch(() => ''));
    });
  });
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    await healthy?.close();
    await hostile?.close();
  });

  let first: { id: string; shortKey: string };

  it('lists deliveries with text badges, the same rows as the JSON API, and filters from the URL', async () => {
    first = await finishSession();
    const second = await finishSession();
    await settled(first.id, 'delivered');
    await settled(second.id, 'delivered');
    await loginInBrowser(page, sandbox.url, USERNAME, PASSWORD);
    await page.getByRole('link', { name: 'Deliveries' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Deliveries');
    const links = await page.getByRole('row').getByRole('link').allTextContents();
    expect(links).toEqual((await apiList('')).deliveries.map((d) => d.sessionId));
    await expect(page.getByRole('row', { name: new RegExp(first.id) }).textContent()).resolves.toContain('Delivered');
    await checkBothSizes(page, 'portal-01-deliveries');

    // Keyboard only: type in the Session box and press Enter.
    await page.getByLabel('Session').focus();
    await page.keyboard.type(first.shortKey);
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/dashboard/deliveries?status=all&session=${first.shortKey}**`);
    await expect(page.getByRole('row').getByRole('link').allTextContents()).resolves.toEqual([first.id]);
    await page.getByLabel('Status').selectOption({ label: 'Failed' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page.getByText('No deliveries match these filters.').isVisible()).resolves.toBe(true);
    // The UTC days the two were created on, not today's: the run may cross midnight.
    const days = (await apiList('')).deliveries.map((d) => d.createdAt.slice(0, 10)).sort();
    const [from, to] = [days[0], days.at(-1)];
    await page.goto(`${sandbox.url}/dashboard/deliveries?status=delivered&from=${from}&to=${to}`);
    await expect(page.getByLabel('Status').inputValue()).resolves.toBe('delivered');
    await expect(page.getByLabel('From').inputValue()).resolves.toBe(from);
    await expect(page.getByRole('row').getByRole('link').count()).resolves.toBe(2);
  });

  it('inspects a delivery: the request with the key masked, Copy body, every attempt, and Redeliver', async () => {
    await page.goto(`${sandbox.url}/dashboard/deliveries`);
    await page.getByRole('link', { name: first.id }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/^Delivery/);
    await expect(page.getByRole('row', { name: /authorization/ }).textContent()).resolves.toContain(
      `Bearer ••••${AUTH_KEY.slice(-4)}`,
    );
    expect(await page.content()).not.toContain(AUTH_KEY);
    await page.getByRole('button', { name: 'Copy body' }).click();
    await page.getByText('Body copied.').waitFor({ timeout: 5000 });
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(copied)).toMatchObject({ id: first.id, sessionId: first.id });
    await expect(page.locator('tr.attempt').count()).resolves.toBe(1);
    await checkBothSizes(page, 'portal-02-delivery');
    // On a phone every column of the attempt, Latency and Response included, is on screen.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const label of ['Result', 'Latency', 'Response']) {
      const box = await page.locator(`tr.attempt td[data-label="${label}"]`).boundingBox();
      expect(box !== null && box.x >= 0 && box.x + box.width <= 390, `${label} within 390 px`).toBe(true);
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    const form = page.locator('form[action$="/redeliver"]');
    const fields = {
      _csrf: (await form.locator('input[name=_csrf]').inputValue()) ?? '',
      _click: (await form.locator('input[name=_click]').inputValue()) ?? '',
    };
    const action = `${sandbox.url}${await form.getAttribute('action')}`;
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Redelivery queued' }).count()).resolves.toBe(1);
    // The same click sent again (a double submit, a retried request) queues nothing more.
    const repeat = await page.request.post(action, { form: fields, headers: { Origin: sandbox.url } });
    expect(repeat.status()).toBe(200);
    expect(await repeat.text()).toContain('Redelivery queued');
    await reloadUntil(async () => (await page.locator('tr.attempt').count()) === 2);
    await expect(page.getByText('Round 2 queued').count()).resolves.toBe(1);
    await expect(page.getByText(/redeliver asked by alice/).count()).resolves.toBe(1);
    await checkBothSizes(page, 'portal-03-redelivered');
  });

  it('sends test events to a failing and a healthy receiver, showing the answer (escaped) and the fix', async () => {
    await useUrl(`${hostile.url}/hook`);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Payload shape').selectOption('v1');
    await page.getByRole('button', { name: 'Send test event' }).click();
    const answer = page.locator('#test-answer');
    await expect(answer.textContent()).resolves.toContain('HTTP 500');
    // The choice stays for the next send.
    await expect(page.getByLabel('Payload shape').inputValue()).resolves.toBe('v1');
    await expect(answer.textContent()).resolves.toContain('(v1 payload)');
    await expect(answer.locator('pre').textContent()).resolves.toBe(XSS);
    await expect(answer.textContent()).resolves.toMatch(/Your handler failed/);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await expect(page.locator('img[src="x"]').count()).resolves.toBe(0);
    await checkBothSizes(page, 'portal-04-test-event-failing');

    await useUrl(healthy.url);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.locator('#test-answer').textContent()).resolves.toMatch(/Delivered:\s*HTTP 200/);
    expect(healthy.events.some((e) => e.sessionId.startsWith('test_'))).toBe(true);
    await checkBothSizes(page, 'portal-05-test-event-healthy');
  });

  it('shows the failed test event’s XSS answer as text on its delivery page', async () => {
    await page.goto(`${sandbox.url}/dashboard/deliveries`);
    const testRow = page.getByRole('row', { name: /Test/ }).last();
    await testRow.getByRole('link').click();
    await expect(page.locator('tr.attempt pre').first().textContent()).resolves.toBe(XSS);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await expect(page.locator('img[src="x"]').count()).resolves.toBe(0);
    await checkBothSizes(page, 'portal-04b-test-delivery-hostile-answer');
  });

  it('shows hostile filter values from a shared URL as text, and a bad one as a 400 naming the parameter', async () => {
    const hostile = '"><img src=x onerror="window.__xss=3"><script>window.__xss=4</script>';
    await page.goto(`${sandbox.url}/dashboard/deliveries?session=${encodeURIComponent(hostile)}`);
    await expect(page.getByLabel('Session').inputValue()).resolves.toBe(hostile);
    await expect(page.getByText('No deliveries match these filters.').isVisible()).resolves.toBe(true);
    const bad = await page.goto(`${sandbox.url}/dashboard/deliveries?from=${encodeURIComponent(hostile)}`);
    expect(bad?.status()).toBe(400);
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/from/);
    const forgedCursor = await page.goto(`${sandbox.url}/dashboard/deliveries?after=${encodeURIComponent(hostile)}`);
    expect(forgedCursor?.status()).toBe(400);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await expect(page.locator('img[src="x"]').count()).resolves.toBe(0);
    await checkBothSizes(page, 'portal-04c-bad-filter');
  });

  it('replays failed deliveries after confirmation, and says how many it queued', async () => {
    const since = new Date(Date.now() - 60_000).toISOString().slice(0, 16);
    await useUrl(`${hostile.url}/hook`);
    const failing = await finishSession();
    await settled(failing.id, 'failed');
    hostileStatus = 200;
    const expected = (await api(sandbox.url, 'GET', `${PORTAL_API.replayFailed}?since=${since}:00Z`)).json as {
      failed: number;
    };
    expect(expected.failed).toBeGreaterThanOrEqual(2); // this session and the failed test event
    await page.goto(`${sandbox.url}/dashboard/deliveries`);
    await page.getByLabel('Failed since (UTC)').fill(since);
    await page.getByRole('button', { name: 'Replay failed' }).click();
    await expect(page.getByText(`Replay ${expected.failed} failed deliveries`).count()).resolves.toBe(1);
    await checkBothSizes(page, 'portal-06-replay-confirm');
    await page.getByRole('button', { name: 'Confirm replay' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe(
      `Replay queued ${expected.failed} failed deliveries for a new round of attempts. Below: those deliveries, their states updating live.`,
    );
    // What was queued, and only that, is on the page it lands on, and its row follows it to Delivered.
    await expect(page.getByText('No deliveries match these filters').count()).resolves.toBe(0);
    await expect(page.locator('tbody tr').count()).resolves.toBe(expected.failed);
    await expect(page.getByText('Only the deliveries this replay queued.').count()).resolves.toBe(1);
    await expect(page.getByRole('link', { name: 'Show all deliveries' }).count()).resolves.toBe(1);
    const replayed = page.getByRole('row', { name: new RegExp(failing.id) });
    await expect(replayed.count()).resolves.toBe(1);
    await checkBothSizes(page, 'portal-06c-replay-queued');
    await settled(failing.id, 'delivered');
    await replayed.getByText('Delivered').waitFor({ timeout: 10_000 });
    hostileStatus = 500;
  });

  it('updates rows and states live (server-sent events), without a reload', async () => {
    await useUrl(healthy.url);
    await page.goto(`${sandbox.url}/dashboard/deliveries`);
    await page.evaluate(() => {
      (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
    });
    const fresh = await finishSession();
    const row = page.getByRole('row', { name: new RegExp(fresh.id) });
    // The row appears with the first event the page hears of (Sending, or Delivered on a quick
    // machine) and then follows the delivery to Delivered, all in the same document.
    await row.waitFor({ timeout: 10_000 });
    await row.getByText('Delivered').waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    await expect(page.locator('#live-status').textContent()).resolves.toMatch(/^Updated \d\d:\d\d:\d\d UTC\.$/);
    await checkBothSizes(page, 'portal-06b-live-update');
  });

  it('shows endpoint health as an SVG chart and a table, success rate, latency and the last error', async () => {
    await page.getByRole('link', { name: 'Endpoint health' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Endpoint health');
    await expect(page.getByRole('img', { name: 'Attempts per hour, last 24 hours' }).count()).resolves.toBe(1);
    await expect(page.getByRole('row', { name: /Success rate/ }).textContent()).resolves.toMatch(/\d+\.\d %/);
    await expect(page.getByRole('row', { name: /Latency p95/ }).textContent()).resolves.toMatch(/\d+ ms/);
    await expect(page.getByRole('row', { name: /Last error/ }).textContent()).resolves.toMatch(/HTTP 500/);
    // The chart's table is in the page for everyone (it was in a closed disclosure, hidden from
    // screen readers too): found by role without opening anything, in a focusable scroll region.
    await expect(page.getByRole('region', { name: 'The same numbers as a table' }).count()).resolves.toBe(1);
    // Only the hourly table's rows: the last error's time can read "…:00…" too.
    const hourly = page.getByRole('table', { name: 'Attempts per hour (UTC)' });
    await expect(hourly.locator('tbody tr').count()).resolves.toBe(24);
    await expect(hourly.locator('tbody tr').first().textContent()).resolves.toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:00/);
    await checkBothSizes(page, 'portal-07-health');
  });

  it('keeps companies apart and pages 50 at a time (Next page / Previous page)', async () => {
    const mine = (await apiList('')).deliveries[0]?.eventId ?? '';
    for (let i = 0; i < 53; i++) await finishSession(bob);
    await logoutInBrowser(page);
    await loginInBrowser(page, sandbox.url, 'bob', PASSWORD);
    await page.goto(`${sandbox.url}/dashboard/deliveries`);
    const links = page.getByRole('row').getByRole('link');
    await expect(links.count()).resolves.toBe(50);
    expect(await page.content()).not.toContain(first.id);
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect(links.count()).resolves.toBe(3);
    await expect(page.getByRole('link', { name: 'Next page' }).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Previous page' }).click();
    await expect(links.count()).resolves.toBe(50);
    await expect(links.allTextContents()).resolves.toEqual((await apiList('', bob)).deliveries.map((d) => d.sessionId));
    await checkBothSizes(page, 'portal-08-other-company');
    const foreign = await page.goto(`${sandbox.url}/dashboard/deliveries/${mine}`);
    expect(foreign?.status()).toBe(404);
    await expectAccessible(page);
    // Bob's replay sees none of alice's failed deliveries.
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    await page.goto(`${sandbox.url}/dashboard/deliveries`);
    await page.getByLabel('Failed since (UTC)').fill(since);
    await page.getByRole('button', { name: 'Replay failed' }).click();
    await expect(page.getByText('Replay 0 failed deliveries').count()).resolves.toBe(1);
  });

  it('refuses state changes without the CSRF token', async () => {
    const forged = await page.request.post(`${sandbox.url}/dashboard/deliveries/replay-failed/confirm`, {
      form: { since: '2020-01-01T00:00:00.000Z', _click: 'a'.repeat(22) },
      headers: { Origin: sandbox.url },
    });
    expect(forged.status()).toBe(403);
    const crossSite = await page.request.post(`${sandbox.url}/dashboard/settings/test-event`, {
      form: { shape: 'v1', _click: 'b'.repeat(22) },
      headers: { Origin: 'https://evil.example' },
    });
    expect(crossSite.status()).toBe(403);
  });

  it('never put the full Auth Key in a page, a fragment, a script or a log line', async () => {
    const texts = await Promise.all(loaded);
    expect(texts.filter((text) => text.includes('<h1>')).length).toBeGreaterThan(20);
    expect(texts.some((text) => text.includes(`••••${AUTH_KEY.slice(-4)}`))).toBe(true);
    for (const text of [...texts, ...logs]) expect(text).not.toContain(AUTH_KEY);
  });
});
