import { receiverExampleSuite } from '@kyc/test-support';
import { expect, it } from 'vitest';
import { createApp } from './server.js';

receiverExampleSuite(
  'fastify-receiver',
  async ({ authKey, signingSecrets, onDecision }) => {
    const app = await createApp({ authKeys: authKey, ...(signingSecrets && { signingSecrets }), onDecision });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `${address}/webhooks/kyc`, close: () => app.close() };
  },
  { signing: true },
);

it('keeps Fastify JSON parsing for the rest of the app', async () => {
  const app = await createApp({ authKeys: 'example-auth-key-7f3c9a1e5b2d4f60', onDecision: () => {} });
  const response = await app.inject({ method: 'POST', url: '/echo', payload: { hello: 'world' } });
  expect(response.json()).toEqual({ hello: 'world' });
  await app.close();
});
