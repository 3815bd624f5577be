import {
  AUTH_SCHEME,
  HEADERS,
  JSON_CONTENT_TYPE,
  sampleStatusWebhook,
  sampleV1Webhook,
  WEBHOOK_USER_AGENT,
} from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXAMPLE_SIGNING_SECRETS, signatureHeaders } from './signing.js';

/** A decision as the examples record it (mirrors `@kyc/example-actions`). */
export interface RecordedDecision {
  readonly sessionId: string;
  readonly action: string;
}

/** How a suite starts one example: it gets the key and a sink, and returns where it listens. */
export type StartExample = (options: {
  authKey: string;
  /** With `{ signing: true }`: the new and the old secret of a rotation, as KYC_SIGNING_SECRETS lists them. */
  signingSecrets?: readonly string[];
  onDecision: (decision: RecordedDecision) => void;
}) => Promise<StartedExample>;

/** A running example. */
export interface StartedExample {
  readonly url: string;
  close(): Promise<void>;
  /**
   * Resolves once decisions already made have reached `onDecision`. Needed where they travel on
   * another channel than the HTTP answer (a child process's stdout), so they may land after it.
   */
  settle?(): Promise<void>;
}

const AUTH_KEY = 'example-auth-key-7f3c9a1e5b2d4f60';
const { new: NEW_SECRET, old: OLD_SECRET, forged: FORGED_SECRET } = EXAMPLE_SIGNING_SECRETS;

/**
 * The behaviour every receiver example must show, run against the example's real server:
 * the Auth Key check, both payload shapes, duplicates, and a later event for the same session.
 */
export function receiverExampleSuite(name: string, start: StartExample, options: { signing?: boolean } = {}): void {
  describe(`${name}: receives KYC webhooks`, () => {
    const decisions: RecordedDecision[] = [];
    let server: StartedExample;
    const signing = options.signing === true;

    beforeAll(async () => {
      server = await start({
        authKey: AUTH_KEY,
        ...(signing ? { signingSecrets: [NEW_SECRET, OLD_SECRET] } : {}),
        onDecision: (decision) => decisions.push(decision),
      });
    });
    afterAll(async () => {
      await server?.close();
    });

    /** Signed with the new secret when the suite checks signatures (`secrets: []` sends none). */
    const deliver = (
      body: unknown,
      authKey: string | null = AUTH_KEY,
      webhookId?: string,
      signedWith: { secrets?: readonly string[]; ageSeconds?: number } = {},
    ) => send(JSON.stringify(body), authKey, webhookId, signedWith);
    const send = async (
      text: string,
      authKey: string | null,
      webhookId: string | undefined,
      signedWith: { secrets?: readonly string[]; ageSeconds?: number },
    ) => {
      const headers: Record<string, string> = {
        [HEADERS.contentType]: JSON_CONTENT_TYPE,
        [HEADERS.userAgent]: WEBHOOK_USER_AGENT,
      };
      if (authKey !== null) headers[HEADERS.authorization] = `${AUTH_SCHEME} ${authKey}`;
      const secrets = signedWith.secrets ?? (signing ? [NEW_SECRET] : []);
      const id = webhookId ?? `evt-${crypto.randomUUID()}`;
      if (webhookId !== undefined) headers[HEADERS.webhookId] = id;
      if (secrets.length > 0)
        Object.assign(headers, await signatureHeaders(text, { id, secrets, ageSeconds: signedWith.ageSeconds ?? 0 }));
      return fetch(server.url, { method: 'POST', headers, body: text });
    };
    /** The decisions for a session, once `expected` of them arrived (or a few seconds passed) and the rest settled. */
    const decisionsFor = async (sessionId: string, expected = 0) => {
      const of = () => decisions.filter((d) => d.sessionId === sessionId);
      await vi.waitFor(() => expect(of().length).toBeGreaterThanOrEqual(expected), { timeout: 5_000 }).catch(() => {});
      await server.settle?.();
      return of();
    };

    it('rejects a delivery without a key, or with a wrong one, and acts on neither', async () => {
      const body = { ...structuredClone(sampleStatusWebhook), sessionId: `${name}-unauth` };
      expect((await deliver(body, null)).status).toBe(401);
      const wrong = await deliver(body, 'not-the-key-but-long-enough');
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get(HEADERS.wwwAuthenticate)).toMatch(/^Bearer/);
      expect(await decisionsFor(`${name}-unauth`)).toEqual([]);
    });

    it('acts on a status-shaped delivery once, however often it is delivered', async () => {
      const sessionId = `${name}-status`;
      const body = { ...structuredClone(sampleStatusWebhook), sessionId };
      const answers = await Promise.all([deliver(body, AUTH_KEY, 'evt-1'), deliver(body, AUTH_KEY, 'evt-1')]);
      answers.push(await deliver(body, AUTH_KEY, 'evt-1'));
      for (const answer of answers) expect([200, 409]).toContain(answer.status);
      expect((await deliver(body, AUTH_KEY, 'evt-1')).status).toBe(200);
      expect(await decisionsFor(sessionId, 1)).toEqual([
        { sessionId, action: 'activate-account', reason: expect.any(String) },
      ]);
    });

    it('acts again on a later event for the same session (PENDING, then APPROVED)', async () => {
      const sessionId = `${name}-review`;
      const pending = { ...structuredClone(sampleStatusWebhook), sessionId, status: 'PENDING' };
      const approved = { ...pending, status: 'APPROVED', timestamp: '2026-11-22T09:00:00.000Z' };
      expect((await deliver(pending)).status).toBe(200);
      expect((await deliver(approved)).status).toBe(200);
      expect((await decisionsFor(sessionId, 2)).map((d) => d.action)).toEqual([
        'notify-compliance',
        'activate-account',
      ]);
    });

    it('reads a v1 delivery and sends it to review by scores', async () => {
      const id = `${name}-v1`;
      const body = {
        ...structuredClone(sampleV1Webhook),
        id,
        detailsURL: sampleV1Webhook.detailsURL.replace(/[^/]+$/, id),
      };
      expect((await deliver(body)).status).toBe(200);
      expect((await decisionsFor(id, 1)).map((d) => d.action)).toEqual(['review-scores']);
    });

    it.runIf(signing)(
      'verifies signatures from the environment: either secret of a rotation; a forged, stale or missing one gets 401',
      async () => {
        const bodyFor = (suffix: string) => ({
          ...structuredClone(sampleStatusWebhook),
          sessionId: `${name}-${suffix}`,
        });
        // During an overlap the service sends both signatures in one header; after it, only the new one.
        expect(
          (await deliver(bodyFor('both'), AUTH_KEY, undefined, { secrets: [NEW_SECRET, OLD_SECRET] })).status,
        ).toBe(200);
        expect((await deliver(bodyFor('old'), AUTH_KEY, undefined, { secrets: [OLD_SECRET] })).status).toBe(200);
        expect((await deliver(bodyFor('forged'), AUTH_KEY, undefined, { secrets: [FORGED_SECRET] })).status).toBe(401);
        const stale = { secrets: [NEW_SECRET], ageSeconds: 600 };
        expect((await deliver(bodyFor('stale'), AUTH_KEY, undefined, stale)).status).toBe(401);
        expect((await deliver(bodyFor('unsigned'), AUTH_KEY, undefined, { secrets: [] })).status).toBe(401);
        expect((await decisionsFor(`${name}-old`, 1)).length).toBe(1);
        for (const refused of ['forged', 'stale', 'unsigned'])
          expect(await decisionsFor(`${name}-${refused}`)).toEqual([]);
      },
    );

    it('answers 400 to a body that is not JSON', async () => {
      const response = await send('{"sessionId": ', AUTH_KEY, undefined, {});
      expect(response.status).toBe(400);
    });

    it('answers a GET with 405 and Allow: POST, as on every framework', async () => {
      const response = await fetch(server.url);
      expect([response.status, response.headers.get('allow')]).toEqual([405, 'POST']);
    });
  });
}
