import { chromiumAvailable } from '@kyc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox } from './helpers.js';
import { ARTIFACTS, launchBrowser } from './support/browser.js';

describe.skipIf(!(await chromiumAvailable()))('the API reference page in Chromium', () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  it('renders both operations, the webhook and the schemas from local assets only, without a console error', async () => {
    const { page } = browser;
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });

    await page.goto(`${sandbox.url}/api-reference`);
    await page.locator('#operations-Sessions-finishSession').waitFor({ timeout: 15_000 });
    await expect(page.locator('#operations-Sessions-getSession').count()).resolves.toBe(1);
    // OpenAPI 3.1 webhooks: Swagger UI lists them in a section of their own.
    await expect(page.getByText('session.completed').first().isVisible()).resolves.toBe(true);
    await expect(page.locator('.info .title').textContent()).resolves.toContain('KYC completion webhook service');

    // Open the finish operation: its error answers and request body come from the document.
    await page.locator('#operations-Sessions-finishSession .opblock-summary').click();
    const finish = page.locator('#operations-Sessions-finishSession');
    await finish.locator('.responses-table').first().waitFor();
    for (const status of ['200', '401', '404', '429', '503']) {
      await expect(finish.locator(`tr.response[data-code="${status}"]`).count(), status).resolves.toBe(1);
    }
    // Swagger UI shows what it cannot render (an unsupported dialect, a broken $ref) in the page.
    await expect(page.getByText('Warning', { exact: true }).count()).resolves.toBe(0);
    await expect(page.locator('.errors-wrapper').count()).resolves.toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}api-reference.png`, fullPage: true });

    const origin = new URL(sandbox.url).origin;
    const foreign = requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'));
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
  });
});
