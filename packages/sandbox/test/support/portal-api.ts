import { SIGNING_SECRET_PREFIX } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { afterAll, beforeAll, expect } from 'vitest';
import { SIGNING_SECRET_API } from '../../src/api/signing-secret-routes.js';
import { type DeliveryPage, PORTAL_API } from '../../src/index.js';
import { listen } from '../../src/server/listen.js';
import { AUTH_KEY, api, basicAuth, eventually, PASSWORD, startTestReceiver, startTestSandbox } from '../helpers.js';

/**
 * The portal API suite's world: a sandbox whose company signs every delivery, a healthy receiver
 * and a flaky one, with every portal answer and log line kept for the leak scan at the end.
 * Fields are set by the `beforeAll` that `portalApiWorld()` registers, before any test reads them.
 */
export class PortalApiWorld {
  sandbox!: Awaited<ReturnType<typeof startTestSandbox>>;
  healthy!: Awaited<ReturnType<typeof startTestReceiver>>;
  flaky!: Awaited<ReturnType<typeof listen>>;
  /** What the flaky receiver answers right now. */
  flakyStatus = 500;
  /** The company's signing secret: its create answer is not kept, and no other answer may show it. */
  signingSecret = '';
  readonly bob = basicAuth('bob', PASSWORD);
  readonly logs: string[] = [];
  readonly everyAnswer: string[] = [];

  /** A portal call; every answer is kept so the test can prove the Auth Key never appears in one. */
  async portal(method: string, path: string, options: { body?: unknown; as?: string; key?: string } = {}) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      authorization: options.as ?? this.sandbox.basic,
    };
    if (options.key !== undefined) headers['idempotency-key'] = options.key;
    const response = await fetch(`${this.sandbox.url}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    this.everyAnswer.push(text);
    return { status: response.status, json: JSON.parse(text) as unknown };
  }

  async finishSession(as?: string): Promise<string> {
    const created = await api(this.sandbox.url, 'POST', '/sandbox/sessions', {
      body: { shape: 'both' },
      ...(as ? { authorization: as } : {}),
    });
    const id = (created.json as { id: string }).id;
    const finished = await api(this.sandbox.url, 'POST', '/api/v1/kyc/session/finish', {
      body: { sessionId: id },
      ...(as ? { authorization: as } : {}),
    });
    expect(finished.status).toBe(200);
    return id;
  }

  async list(query = '', as?: string): Promise<DeliveryPage> {
    return (await this.portal('GET', `${PORTAL_API.deliveries}${query}`, as ? { as } : {})).json as DeliveryPage;
  }

  async stateOf(sessionId: string): Promise<string> {
    return (await this.list(`?session=${sessionId}`)).deliveries[0]?.state ?? 'missing';
  }

  settle(sessionId: string, state: string): Promise<true> {
    return eventually(async () => ((await this.stateOf(sessionId)) === state ? true : undefined));
  }
}

/** Registers the suite's hooks where it is called and returns the world they set up. */
export function portalApiWorld(): PortalApiWorld {
  const world = new PortalApiWorld();
  beforeAll(async () => {
    const certificate = await createTestCertificate(['127.0.0.1', 'localhost']);
    world.healthy = await startTestReceiver({ certificate });
    // A 204 may carry no body.
    const answer = () => (world.flakyStatus === 204 ? null : `{"answer":"flaky ${world.flakyStatus}"}`);
    world.flaky = await listen(() => new Response(answer(), { status: world.flakyStatus }), {
      port: 0,
      host: '127.0.0.1',
      tls: certificate,
    });
    const log = (m: string) => world.logs.push(m);
    world.sandbox = await startTestSandbox({ ca: certificate.cert, logger: { info: log, warn: log, error: log } });
    await world.sandbox.running.sandbox.addUser('bob', PASSWORD, { company: 'Other Company' });
    const saved = await api(world.sandbox.url, 'PUT', '/sandbox/settings', {
      body: { webhookUrl: world.healthy.url, authKey: AUTH_KEY },
    });
    expect(saved.status).toBe(200);
    // Signed deliveries: the last scan looks for the secret too (its create answer, not kept, may show it).
    const created = await api(world.sandbox.url, 'POST', SIGNING_SECRET_API.secret);
    world.signingSecret = (created.json as { secret: { secret: string } }).secret.secret;
    expect(world.signingSecret.startsWith(SIGNING_SECRET_PREFIX)).toBe(true);
  });
  afterAll(async () => {
    await world.sandbox?.close();
    await world.healthy?.close();
    await world.flaky?.close();
  });
  return world;
}
