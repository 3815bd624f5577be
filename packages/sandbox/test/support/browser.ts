import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PATH } from '@kyc/test-support';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { tempDir } from '../helpers.js';

/** Where the browser suites save their screenshots. */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Headless Chromium with a fresh profile and the flags the machine requires. */
export async function launchBrowser(): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = tempDir('kyc-sandbox-chromium-');
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 800 },
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
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      profile.remove();
    },
  };
}

/** Logs in through the login form, by its labels, and waits for the dashboard. */
export async function loginInBrowser(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/dashboard/**');
}

/** Logs out with the header's button (a CSRF-protected form). */
export async function logoutInBrowser(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL('**/login');
}

/**
 * Runs axe-core in the page (evaluated over the DevTools protocol, so the page's CSP, which
 * allows no inline script, stays on) and fails on any serious or critical violation.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: unknown }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
  expect(violations).toEqual([]);
}

/** The page's width beyond the viewport: what a person would have to scroll sideways (0 when none). */
async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * Form controls a phone user would fight with: a text field or list under 16 px (iOS Safari
 * zooms the page in when it gets focus, and the user must zoom back out after every field),
 * or a control less than 24 px tall (WCAG 2.2's minimum target size, 2.5.8).
 */
async function awkwardControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const noTextEntry = new Set(['checkbox', 'radio', 'hidden', 'submit', 'button', 'reset', 'file', 'range', 'color']);
    for (const control of document.querySelectorAll<HTMLElement>('input, select, textarea, button')) {
      const box = control.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      const name = `${control.tagName.toLowerCase()}${control.id ? `#${control.id}` : ''}${control.getAttribute('name') ? `[name=${control.getAttribute('name')}]` : ''}`;
      const type = control instanceof HTMLInputElement ? control.type : '';
      const entersText = control.tagName !== 'BUTTON' && !noTextEntry.has(type);
      const fontSize = Number.parseFloat(getComputedStyle(control).fontSize);
      if (entersText && fontSize < 16) problems.push(`${name}: font-size ${fontSize} px`);
      if (box.height < 24 && type !== 'checkbox' && type !== 'radio')
        problems.push(`${name}: ${Math.round(box.height)} px tall`);
    }
    return problems;
  });
}

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/**
 * Checks the page as a desktop (1280×800) and a phone (390×844) show it, and saves both under
 * `test-artifacts/` (gitignored): at each size, axe finds no serious or critical violation, and
 * at neither does the page scroll sideways (a wide table may scroll inside its own focusable
 * region, never the page); on the phone, no form control is too small to use.
 */
export async function checkBothSizes(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['mobile', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: `${ARTIFACTS}${name}-${size}.png`, fullPage: true });
    expect(await sidewaysOverflow(page), `${name} at ${viewport.width} px scrolls sideways`).toBe(0);
    if (size === 'mobile') expect(await awkwardControls(page), `${name}: controls on a phone`).toEqual([]);
    await expectAccessible(page);
  }
  await page.setViewportSize(DESKTOP);
}
