import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PATH } from '@kyc/test-support';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Where the site's screenshots go (ignored by git, like every package's `test-artifacts/`). */
export const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every request that left loopback (and was refused): the site must work offline. */
  readonly foreignRequests: readonly string[];
  /** Console errors and warnings, failed page scripts, and answers of 400 or more. */
  readonly problems: readonly string[];
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile and the flags this machine needs, offline but for `origin`. */
export async function launchBrowser(origin: string): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'kyc-docs-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
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
  const foreignRequests: string[] = [];
  const problems: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
    foreignRequests.push(url);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  return {
    context,
    page,
    foreignRequests,
    problems,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** axe-core's serious and critical violations on the page, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string; help: string; nodes: { target: unknown }[] }[] };
    const { axe } = globalThis as unknown as { axe: { run(): Promise<Result> } };
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}
