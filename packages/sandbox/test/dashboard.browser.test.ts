import { chromiumAvailable } from '@kyc/test-support';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_KEY, PASSWORD, startTestReceiver, startTestSandbox, USERNAME } from './helpers.js';
import { checkBothSizes, launchBrowser, loginInBrowser } from './support/browser.js';

describe.skipIf(!(await chromiumAvailable()))('dashboard in Chromium', () => {
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
  let context: BrowserContext;
  let page: Page;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  // Each page at 1280 and 390 px: axe finds no serious or critical violation, nothing scrolls sideways.
  const shot = (name: string) => checkBothSizes(page, `dashboard-${name}`);

  beforeAll(async () => {
    receiver = await startTestReceiver();
    sandbox = await startTestSandbox({ ca: receiver.certificate.cert });
    browser = await launchBrowser();
    context = browser.context;
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    await receiver?.close();
  });

  it('logs in with an operator-issued user; the session cookie is HttpOnly and SameSite', async () => {
    await page.goto(`${sandbox.url}/dashboard/sessions`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('#username', USERNAME);
    await page.fill('#password', 'wrong password');
    await page.click('button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('Wrong username or password.');
    // The shared helper logs in by the form's labels, as every browser suite does.
    await loginInBrowser(page, sandbox.url, USERNAME, PASSWORD);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sessions');
    const cookie = (await context.cookies()).find((c) => c.name === 'kyc_sandbox');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    await shot('01-logged-in');
  });

  it('shows the engine’s messages for an invalid URL and a weak key, then saves valid settings', async () => {
    await page.click('text=Settings');
    await page.click('text=Edit');
    await expect(page.locator('legend').textContent()).resolves.toBe('Products');
    await expect(page.locator('h3').textContent()).resolves.toBe('Traditional KYC');
    await page.fill('#webhookUrl', 'http://example.com/kyc');
    await page.fill('#authKey', 'password123');
    await page.click('button[value=save]');
    const urlError = await page.locator('#webhookUrl-error').textContent();
    const keyError = await page.locator('#authKey-error').textContent();
    expect(urlError).toMatch(/https/i);
    expect(keyError).toBeTruthy();
    await shot('02-settings-rejected');

    await page.click('button[value=generate]');
    const generated = await page.inputValue('#authKey');
    expect(generated.length).toBeGreaterThanOrEqual(16);
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('generated');

    await page.fill('#webhookUrl', receiver.url);
    await page.fill('#authKey', AUTH_KEY);
    await page.click('button[value=save]');
    await page.waitForURL('**/dashboard/settings?saved=1');
    await expect(page.locator('#current-webhook-url').textContent()).resolves.toBe(receiver.url);
    // Only the last four characters, as on a delivery's Authorization header and in the CLI.
    await expect(page.locator('#current-auth-key').textContent()).resolves.toBe(
      `set, ends in ••••${AUTH_KEY.slice(-4)}`,
    );
    expect(await page.content()).not.toContain(AUTH_KEY);
    await shot('03-settings-saved');
  });

  it('rejects a form post without the CSRF token', async () => {
    const forged = await page.request.post(`${sandbox.url}/dashboard/sessions`, {
      form: { status: 'APPROVED', shape: 'both' },
      headers: { Origin: sandbox.url },
    });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toMatch(/CSRF/);
  });

  it('finishes a session, shows the delivery and its attempt, and redelivers it', async () => {
    await page.click('text=Sessions');
    await page.selectOption('#status', 'APPROVED');
    await page.click('text=Create session');
    const row = page.locator('#sessions tr[data-session-id]').first();
    const sessionId = (await row.getAttribute('data-session-id')) ?? '';
    expect(sessionId).toMatch(/^sess_/);
    await expect(row.locator('.state').textContent()).resolves.toBe('IN_PROGRESS');
    await row.locator('button', { hasText: 'Finish' }).click();
    await expect(page.locator(`tr[data-session-id="${sessionId}"] .state`).textContent()).resolves.toBe('FINISHED');

    await page.locator(`tr[data-session-id="${sessionId}"]`).getByRole('link', { name: 'Delivery' }).click();
    await page.getByRole('link', { name: sessionId }).click();
    const attempts = page.locator('tr.attempt');
    const cell = (row: number, column: number) => attempts.nth(row).locator(`td:nth-child(${column})`).textContent();
    for (let i = 0; i < 100 && (await attempts.count()) < 1; i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    await expect(cell(0, 4)).resolves.toMatch(/^HTTP 200\s*\(delivered\)$/);
    await expect(cell(0, 5)).resolves.toMatch(/^\d+ ms$/);
    await expect(cell(0, 6)).resolves.toContain('"received":true');
    await shot('04-delivered');

    await page.getByRole('button', { name: 'Redeliver' }).click();
    await expect(page.locator('[role=status]').first().textContent()).resolves.toContain('Redelivery queued');
    for (let i = 0; i < 100 && (await attempts.count()) < 2; i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    await expect(cell(1, 4)).resolves.toMatch(/^HTTP 200/);
    // The receiver's answer to the redelivery, shown in the dashboard, says it was a duplicate.
    await expect(cell(1, 6)).resolves.toContain('"duplicate":true');
    await shot('05-redelivered');
    expect(receiver.requests.filter((r) => r.body.includes(sessionId))).toHaveLength(2);
    expect(receiver.events.filter((e) => e.sessionId === sessionId)).toHaveLength(1);
  });
});
