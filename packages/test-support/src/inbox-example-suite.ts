import { AUTH_SCHEME, HEADERS, JSON_CONTENT_TYPE, sampleStatusWebhook, WEBHOOK_USER_AGENT } from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedDecision, StartedExample } from './receiver-example-suite.js';

/** A running inbox example, with read access to its database (the test's own connection). */
export interface StartedInboxExample extends StartedExample {
  /** Runs SQL on the example's database (outside the receiver), for setup and checks. */
  query(text: string, params?: readonly unknown[]): Promise<readonly Record<string, unknown>[]>;
}

/** How a suite starts one inbox example: it gets the key and a sink for the handler's runs. */
export type StartInboxExample = (options: {
  authKey: string;
  onDecision: (decision: RecordedDecision) => void;
}) => Promise<StartedInboxExample>;

const AUTH_KEY = 'example-auth-key-7f3c9a1e5b2d4f60';
const EARLIER = '2026-11-21T10:15:30.123Z';
const LATER = '2026-11-22T09:00:00.000Z';

/**
 * What an inbox example must show against its real server and database: each status's action
 * committed once per event in the `accounts` tables, duplicates (sequential and concurrent)
 * absorbed without running the handler, and a late PENDING that cannot undo an APPROVED.
 * The example starts on empty tables (a fresh schema): its session ids are fixed.
 */
export function inboxExampleSuite(name: string, start: StartInboxExample): void {
  describe(`${name}: acts on each result once, in the database`, () => {
    const decisions: RecordedDecision[] = [];
    let server: StartedInboxExample;
    const session = (suffix: string) => `${name}-${suffix}`;

    beforeAll(async () => {
      server = await start({ authKey: AUTH_KEY, onDecision: (decision) => decisions.push(decision) });
    });
    afterAll(async () => {
      await server?.close();
    });

    const deliver = (body: unknown) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          [HEADERS.contentType]: JSON_CONTENT_TYPE,
          [HEADERS.userAgent]: WEBHOOK_USER_AGENT,
          [HEADERS.authorization]: `${AUTH_SCHEME} ${AUTH_KEY}`,
        },
        body: JSON.stringify(body),
      });
    const result = (sessionId: string, status: string, timestamp = EARLIER) => ({
      ...structuredClone(sampleStatusWebhook),
      sessionId,
      status,
      timestamp,
    });
    // The account exists before its verification ends (created at sign-up).
    const signUp = (sessionId: string) =>
      server.query('INSERT INTO accounts (kyc_session_id) VALUES ($1)', [sessionId]);
    const account = async (sessionId: string) =>
      (await server.query('SELECT status, activated_at FROM accounts WHERE kyc_session_id = $1', [sessionId]))[0];
    const count = async (table: 'outbox' | 'compliance_tasks', sessionId: string) =>
      Number((await server.query(`SELECT count(*) AS n FROM ${table} WHERE session_id = $1`, [sessionId]))[0]?.n);
    const actionsFor = (sessionId: string) => decisions.filter((d) => d.sessionId === sessionId).map((d) => d.action);

    it('activates the account once when the same APPROVED arrives six times, five at once', async () => {
      const sessionId = session('approved');
      await signUp(sessionId);
      const body = result(sessionId, 'APPROVED');
      const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(body)));
      // A copy that waited past the lock timeout gets 409 and is retried; none may fail.
      for (const answer of answers) expect([200, 409]).toContain(answer.status);
      const last = await deliver(body);
      expect([last.status, await last.json()]).toEqual([200, { received: true, duplicate: true }]);
      expect(await account(sessionId)).toEqual({ status: 'active', activated_at: expect.any(Date) });
      expect(actionsFor(sessionId)).toEqual(['activate-account']);
    });

    it('does not run the handler for a duplicate: one e-mail queued for a REJECTED delivered three times', async () => {
      const sessionId = session('rejected');
      await signUp(sessionId);
      const body = result(sessionId, 'REJECTED');
      const first = await deliver(body);
      expect([first.status, await first.json()]).toEqual([200, { received: true }]);
      for (let copy = 0; copy < 2; copy++) {
        const again = await deliver(body);
        expect([again.status, await again.json()]).toEqual([200, { received: true, duplicate: true }]);
      }
      expect(await account(sessionId)).toEqual({ status: 'documents_requested', activated_at: null });
      expect(await count('outbox', sessionId)).toBe(1);
      expect(actionsFor(sessionId)).toEqual(['request-retry']);
    });

    it('acknowledges a late PENDING after APPROVED without running it: no downgrade, no review task', async () => {
      const sessionId = session('late-pending');
      await signUp(sessionId);
      expect((await deliver(result(sessionId, 'APPROVED', LATER))).status).toBe(200);
      const late = await deliver(result(sessionId, 'PENDING', EARLIER));
      expect([late.status, await late.json()]).toEqual([200, { received: true, stale: true }]);
      expect((await account(sessionId))?.status).toBe('active');
      expect(await count('compliance_tasks', sessionId)).toBe(0);
      expect(actionsFor(sessionId)).toEqual(['activate-account']);
    });

    it('moves an account through review (PENDING, then APPROVED) and lets the user retry after an ERROR', async () => {
      const reviewed = session('reviewed');
      const failed = session('error');
      await signUp(reviewed);
      await signUp(failed);
      expect((await deliver(result(reviewed, 'PENDING', EARLIER))).status).toBe(200);
      expect([(await account(reviewed))?.status, await count('compliance_tasks', reviewed)]).toEqual(['in_review', 1]);
      expect((await deliver(result(reviewed, 'APPROVED', LATER))).status).toBe(200);
      expect((await account(reviewed))?.status).toBe('active');
      expect((await deliver(result(failed, 'ERROR'))).status).toBe(200);
      expect(await account(failed)).toEqual({ status: 'retry_allowed', activated_at: null });
      expect([...actionsFor(reviewed), ...actionsFor(failed)]).toEqual([
        'notify-compliance',
        'activate-account',
        'allow-retry',
      ]);
    });
  });
}
