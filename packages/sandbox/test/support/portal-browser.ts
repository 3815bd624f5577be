import { SIGNING_SECRET_PREFIX } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { SIGNING_SECRET_API } from '../../src/api/signing-secret-routes.js';
import { SIGNING_PAGES } from '../../src/dashboard/signing-secret-routes.js';
import { type DeliveryPage, PORTAL_API } from '../../src/index.js';
import { listen } from '../../src/server/listen.js';
import { AUTH_KEY, api, basicAuth, eventually, PASSWORD, startTestReceiver, startTestSandbox } from '../helpers.js';
import { launchBrowser } from './browser.js';

/** What a hostile receiver answers; the portal shows it as text, never as markup. */
export const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

/** A response the browser loaded from the sandbox, kept for the leak scan at the end. */
export interface LoadedResponse {
  readonly url: string;
  readonly method: string;
  readonly text: string;
}

/**
 * The portal suite's world: a sandbox whose company signs every delivery, a healthy and a
 * hostile receiver, and Chromium with every page it loads recorded. Its hooks go in the
 * `describe` that calls `portalInBrowser()`, so they are skipped with it when there is no
 * Chromium. Fields are set by the `beforeAll`, before any test reads them.
 */
export class PortalInBrowser {
  sandbox!: Awaited<ReturnType<typeof startTestSandbox>>;
  healthy!: Awaited<ReturnType<typeof startTestReceiver>>;
  hostile!: Awaited<ReturnType<typeof listen>>;
  browser!: Awaited<ReturnType<typeof launchBrowser>>;
  page!: Page;
  /** The company's signing secret, created in the setup: shown by the reveal page, nowhere else. */
  signingSecret = '';
  /** What the hostile receiver answers with now (its body is `XSS` unless 200). */
  hostileStatus = 500;
  readonly bob = basicAuth('bob', PASSWORD);
  /** Every log line of the sandbox. */
  readonly logs: string[] = [];
  /** Every page, fragment and script the browser loaded from the sandbox. */
  readonly loaded: Promise<LoadedResponse>[] = [];

  async finishSession(as?: string): Promise<{ id: string; shortKey: string }> {
    const auth = as ? { authorization: as } : {};
    const created = (await api(this.sandbox.url, 'POST', '/sandbox/sessions', { body: {}, ...auth })).json as {
      id: string;
      shortKey: string;
    };
    await api(this.sandbox.url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId: created.id }, ...auth });
    return created;
  }

  async apiList(query: string, as = this.sandbox.basic): Promise<DeliveryPage> {
    return (await api(this.sandbox.url, 'GET', `${PORTAL_API.deliveries}${query}`, { authorization: as }))
      .json as DeliveryPage;
  }

  settled(sessionId: string, state: string): Promise<true> {
    return eventually(async () =>
      (await this.apiList(`?session=${sessionId}`)).deliveries[0]?.state === state ? true : undefined,
    );
  }

  useUrl(url: string) {
    return api(this.sandbox.url, 'PUT', '/sandbox/settings', { body: { webhookUrl: url, authKey: AUTH_KEY } });
  }

  /** Reloads until `check` holds (for pages that are not live). */
  async reloadUntil(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 100 && !(await check()); i++) {
      await this.page.waitForTimeout(100);
      await this.page.reload();
    }
    expect(await check()).toBe(true);
  }

  /** Whether a loaded response is the reveal's answer: the one page allowed to show a secret. */
  static isReveal(response: LoadedResponse): boolean {
    return response.method === 'POST' && new URL(response.url).pathname === SIGNING_PAGES.reveal;
  }
}

/** Registers the suite's hooks in the calling `describe` and returns the world they set up. */
export function portalInBrowser(): PortalInBrowser {
  const world = new PortalInBrowser();
  beforeAll(async () => {
    const certificate = await createTestCertificate(['127.0.0.1', 'localhost']);
    world.healthy = await startTestReceiver({ certificate });
    const answer = () =>
      new Response(world.hostileStatus === 200 ? '{"ok":true}' : XSS, { status: world.hostileStatus });
    world.hostile = await listen(answer, { port: 0, host: '127.0.0.1', tls: certificate });
    const log = (m: string) => world.logs.push(m);
    world.sandbox = await startTestSandbox({ ca: certificate.cert, logger: { info: log, warn: log, error: log } });
    await world.sandbox.running.sandbox.addUser('bob', PASSWORD, { company: 'Other Company' });
    await world.useUrl(world.healthy.url);
    // Every delivery signed, as for a company that set a secret: the last scan looks for it too.
    const created = await api(world.sandbox.url, 'POST', SIGNING_SECRET_API.secret);
    expect(created.status).toBe(201);
    world.signingSecret = (created.json as { secret: { secret: string } }).secret.secret;
    expect(world.signingSecret.startsWith(SIGNING_SECRET_PREFIX)).toBe(true);
    world.browser = await launchBrowser();
    await world.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.sandbox.url });
    world.page = world.browser.page;
    world.page.on('response', (response) => {
      const type = response.headers()['content-type'] ?? '';
      if (!response.url().startsWith(world.sandbox.url) || !/html|json|javascript/.test(type)) return;
      const seen = { url: response.url(), method: response.request().method() };
      world.loaded.push(
        response.text().then(
          (text) => ({ ...seen, text }),
          () => ({ ...seen, text: '' }),
        ),
      );
    });
  });
  afterAll(async () => {
    await world.browser?.close();
    await world.sandbox?.close();
    await world.healthy?.close();
    await world.hostile?.close();
  });
  return world;
}
