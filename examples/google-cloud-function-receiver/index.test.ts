import type { AddressInfo } from 'node:net';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { REDIS_URL, receiverExampleSuite, redisAvailable } from '@kyc/test-support';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';

// index.ts runs inside the real Functions Framework (the server `functions-framework` starts on
// Cloud Run functions: its body parsers, `req.rawBody`, its error handling), on a real port.
const available = await redisAvailable();
afterAll(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe.skipIf(!available)('google-cloud-function-receiver', () => {
  it('runs where the framework has parsed the JSON body and kept the bytes in req.rawBody', async () => {
    functions.http('probe', (req, res) => {
      const { body, rawBody } = req as typeof req & { rawBody?: unknown };
      res.json({ body: typeof body, rawBody: rawBody instanceof Uint8Array ? 'bytes' : typeof rawBody });
    });
    const server = getTestServer('probe').listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"sessionId":"x"}',
      });
      expect(await answer.json()).toEqual({ body: 'object', rawBody: 'bytes' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  receiverExampleSuite(
    'google-cloud-function-receiver',
    async ({ authKey, signingSecrets, onDecision }) => {
      vi.stubEnv('KYC_AUTH_KEY', authKey);
      vi.stubEnv('KYC_SIGNING_SECRETS', signingSecrets?.join(' ') ?? '');
      // The suite's events repeat from run to run, and Redis remembers them for 7 days: a database of our own, emptied first.
      const url = `${REDIS_URL.replace(/\/\d*$/, '')}/11`;
      const redis = new Redis(url);
      await redis.flushdb();
      redis.disconnect();
      vi.stubEnv('REDIS_URL', url);
      vi.spyOn(console, 'info').mockImplementation((line: string) => onDecision(JSON.parse(line)));
      await import('./index.js');
      const server = getTestServer('kycWebhook').listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}/`,
        close: () => new Promise((resolve) => server.close(() => resolve())),
      };
    },
    { signing: true },
  );
});
