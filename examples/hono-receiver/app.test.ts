import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { receiverExampleSuite } from '@kyc/test-support';
import { createApp } from './app.js';

receiverExampleSuite(
  'hono-receiver on Node',
  async ({ authKey, signingSecrets, onDecision }) => {
    const app = createApp({ authKeys: authKey, ...(signingSecrets && { signingSecrets }), onDecision });
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
    });
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/webhooks/kyc`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  },
  { signing: true },
);
