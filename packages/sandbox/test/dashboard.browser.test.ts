import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PATH, chromiumAvailable } from '@kyc/test-support';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_KEY, PASSWORD, startTestReceiver, startTestSandbox, tempDir, USERNAME } from './helpers.js';

const artifacts = fileURLToPath(new URL('../test-artifacts/', import.meta.url));

describe.skipIf(!(await chromiumAvailable()))('dashboard in Chromium', () => {
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
  let context: BrowserContext;
  let page: Page;
  const profile = tempDir('kyc-sandbox-chromium-');
  const shot = (name: string) => page.screenshot({ path: `${artifacts}${name}.png`, fullPage: true });

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    receiver = await startTestReceiver();
    sandbox = await startTestSandbox({ ca: receiver.certificate.cert });
    context = await chromium.launchPersistentContext(profile.path, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
  });
  afterAll(async () => {
    await context?.close();
    await sandbox?.close();
    await receiver?.close();
    profile.remove();
  });

  it('logs in with an operator-issued user; the session cookie is HttpOnly and SameSite', async () => {
    await page.goto(`${sandbox.url}/dashboard/sessions`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('#username', USERNAME);
    await page.fill('#password', 'wrong password');
    await page.click('button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('Wrong username or password.');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL('**/dashboard/sessions');
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
    await expect(page.locator('#current-auth-key').textContent()).resolves.toBe('set (hidden)');
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

    await page.click('text=Deliveries');
    const section = page.locator(`section[id="${sessionId}"]`);
    for (let i = 0; i < 100 && (await section.locator('.delivery-state').textContent()) !== 'delivered'; i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    await expect(section.locator('.delivery-state').textContent()).resolves.toBe('delivered');
    await expect(section.locator('tr.attempt .outcome').allTextContents()).resolves.toEqual(['delivered']);
    await expect(section.locator('tr.attempt .status').allTextContents()).resolves.toEqual(['200']);
    await expect(section.locator('tr.attempt .latency').textContent()).resolves.toMatch(/^\d+ ms$/);
    await expect(section.locator('tr.attempt .response').textContent()).resolves.toContain('"received":true');
    await shot('04-delivered');

    await section.locator('button', { hasText: 'Redeliver' }).click();
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Redelivery started');
    const attempts = page.locator(`section[id="${sessionId}"] tr.attempt`);
    for (let i = 0; i < 100 && (await attempts.count()) < 2; i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    await expect(attempts.locator('.outcome').allTextContents()).resolves.toEqual(['delivered', 'delivered']);
    // The receiver's answer to the redelivery, shown in the dashboard, says it was a duplicate.
    await expect(attempts.nth(1).locator('.response').textContent()).resolves.toContain('"duplicate":true');
    await shot('05-redelivered');
    expect(receiver.requests.filter((r) => r.body.includes(sessionId))).toHaveLength(2);
    expect(receiver.events.filter((e) => e.sessionId === sessionId)).toHaveLength(1);
  });
});
