import { fileURLToPath } from 'node:url';
import { sampleStatusWebhook } from '@kyc/contracts';
import { type RecordedDecision, receiverExampleSuite, type StartedExample } from '@kyc/test-support';
import { startWorkerExample } from '@kyc/test-support/workerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('.', import.meta.url));
const AUTH_KEY = 'example-auth-key-7f3c9a1e5b2d4f60';

// worker.ts is bundled as `wrangler deploy` would (esbuild, one ES module) and run in the real
// workerd through Miniflare, with wrangler.jsonc's compatibility date and Durable Object binding.
receiverExampleSuite(
  'cloudflare-worker-receiver',
  ({ authKey, signingSecrets, onDecision }) =>
    startWorkerExample(
      DIR,
      { KYC_AUTH_KEY: authKey, KYC_SIGNING_SECRETS: signingSecrets?.join(' ') ?? '' },
      onDecision,
    ),
  { signing: true },
);

describe('cloudflare-worker-receiver: one Durable Object per event', () => {
  let worker: StartedExample;
  const decisions: RecordedDecision[] = [];
  beforeAll(async () => {
    worker = await startWorkerExample(DIR, { KYC_AUTH_KEY: AUTH_KEY }, (decision) => decisions.push(decision));
  });
  afterAll(() => worker?.close());

  it('runs the handler once for 20 identical deliveries arriving together', async () => {
    const sessionId = `worker-race-${Date.now()}`;
    const deliver = () =>
      fetch(worker.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${AUTH_KEY}`, 'webhook-id': sessionId },
        body: JSON.stringify({ ...sampleStatusWebhook, sessionId }),
      });
    const statuses = (await Promise.all(Array.from({ length: 20 }, deliver))).map((answer) => answer.status);
    // The first claim wins; the others see it done (200) or still running (409, retried later by the service).
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect((await deliver()).status).toBe(200);
    await worker.settle?.();
    expect(decisions.filter((decision) => decision.sessionId === sessionId)).toHaveLength(1);
  });
});
