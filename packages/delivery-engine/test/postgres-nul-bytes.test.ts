import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { HEADERS } from '@kyc/contracts';
import { postgresAvailable } from '@kyc/test-support';
import { describe, expect, it } from 'vitest';
import { createDeliveryEngine, DeliveryEngineError } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { bodyFor, recordAttempts } from './support/attempts.js';
import { attempt, delivery, T0 } from './support/conformance-rows.js';
import { poolsEndedAfterAll, TEST_SEALING_KEYS, uniqueSchema } from './support/postgres-schema.js';
import { loopbackOptions, startReceiver, testCertificate } from './support/receiver.js';

// Postgres refuses U+0000 in text and JSON: one receiver's answer must not fail the statement
// that records other companies' results (issue 32: 4 of 820 healthy events sent twice).
const available = await postgresAvailable();
const newPool = poolsEndedAfterAll();

/** A receiver of a company whose endpoint answers 500 with a NUL byte and a broken surrogate pair. */
async function startNulReceiver(): Promise<{ url: string; ids: string[]; close(): Promise<void> }> {
  const { key, cert } = await testCertificate();
  const ids: string[] = [];
  const server = createServer({ key, cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers[HEADERS.webhookId]));
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('stack trace\u0000 at 0x0');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    ids,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.skipIf(!available)('postgres store: a NUL byte in one result', () => {
  it('records the bad attempt (NUL shown as ␀) and every healthy one once, in the same turn', async () => {
    const schema = uniqueSchema('nul');
    const pool = newPool({ max: 6 });
    const healthy = await startReceiver(() => 200);
    const bad = await startNulReceiver();
    const attempts = recordAttempts();
    const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
    const engine = createDeliveryEngine({
      store,
      ...(await loopbackOptions()),
      concurrency: 32,
      perEndpointConcurrency: 32,
      onAttempt: attempts.onAttempt,
    });
    try {
      await store.migrate();
      // Everything is due before the worker starts: one claim takes all, and the answers
      // arrive together, so their results share grouped statements.
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        ids.push((await engine.enqueue({ url: healthy.url, body: bodyFor(`ok-${i}`) })).id);
      }
      const badId = (await engine.enqueue({ url: bad.url, body: bodyFor('nul') })).id;
      await engine.start();
      await attempts.waitFor(31);
      await engine.stop();

      for (const id of ids) {
        const record = await engine.getDelivery(id);
        expect(record?.state, id).toBe('delivered');
        expect(record?.attemptLog, id).toHaveLength(1);
        expect(healthy.counts.get(id), id).toBe(1);
      }
      const badRecord = await engine.getDelivery(badId);
      expect(bad.ids).toEqual([badId]);
      expect(badRecord).toMatchObject({ state: 'pending', attempts: 1, lastOutcome: 'server_error', lastStatus: 500 });
      const [logged] = badRecord?.attemptLog ?? [];
      expect(logged?.outcome).toBe('server_error');
      expect(logged?.responseSnippet).toContain('stack trace\u2400 at 0x0');
    } finally {
      await engine.stop().catch(() => undefined);
      await Promise.all([healthy.close(), bad.close()]);
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('stores NULs and lone surrogates of snippets and error texts as ␀ and U+FFFD', async () => {
    const schema = uniqueSchema('nulrows');
    const pool = newPool();
    const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
    try {
      await store.migrate();
      for (const id of ['a', 'b', 'c']) await store.insert(delivery(id, { origin: `https://${id}.example` }));
      const claims = await store.claim({ now: T0, limit: 3, leaseMs: 45_000, excludeOrigins: [] });
      expect(claims).toHaveLength(3);
      const next = { state: 'pending' as const, nextAttemptAt: T0 + 60_000, finishedAt: T0 + 10 };
      // Completed in one turn: one grouped statement.
      const recorded = await Promise.all(
        claims.map((claim) =>
          store.complete(
            claim,
            attempt(1, 'server_error', {
              responseSnippet: claim.id === 'b' ? 'a\u0000b\ud800c' : 'fine',
              errorMessage: claim.id === 'b' ? '\udc00x\u0000' : undefined,
            }),
            next,
          ),
        ),
      );
      expect(recorded).toEqual([true, true, true]);
      const [logged] = (await store.get('b'))?.attemptLog ?? [];
      expect(logged).toMatchObject({ responseSnippet: 'a\u2400b\ufffdc', errorMessage: '\ufffdx\u2400' });
      expect((await store.get('a'))?.attemptLog[0]?.responseSnippet).toBe('fine');
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('writes a refused batch again row by row: only the bad row fails, the others are recorded once', async () => {
    const schema = uniqueSchema('rowbyrow');
    const pool = newPool();
    const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
    try {
      await store.migrate();
      const ids = ['r0', 'r1', 'r2', 'r3', 'r4'];
      for (const id of ids) await store.insert(delivery(id, { origin: `https://${id}.example` }));
      const claims = await store.claim({ now: T0, limit: 5, leaseMs: 45_000, excludeOrigins: [] });
      const next = { state: 'delivered' as const, nextAttemptAt: undefined, finishedAt: T0 + 10 };
      // A latency beyond Postgres's integer: a value no sanitising catches, refused by the
      // database for that row alone (SQLSTATE 22003).
      const settled = await Promise.allSettled(
        claims.map((claim) =>
          store.complete(
            claim,
            attempt(1, 'delivered', { status: 200, latencyMs: claim.id === 'r2' ? 3e9 : 12 }),
            next,
          ),
        ),
      );
      for (const [index, claim] of claims.entries()) {
        const result = settled[index];
        if (claim.id === 'r2') {
          expect(result?.status).toBe('rejected');
          expect(result?.status === 'rejected' && result.reason).toBeInstanceOf(DeliveryEngineError);
          expect((await store.get('r2'))?.attemptLog).toEqual([]);
        } else {
          expect(result).toEqual({ status: 'fulfilled', value: true });
          expect((await store.get(claim.id))?.attemptLog, claim.id).toHaveLength(1);
        }
      }
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });
});
