import type { AddressInfo } from 'node:net';
import { receiverExampleSuite } from '@kyc/test-support';
import { createWebhookServer } from './server.js';

receiverExampleSuite('node-http-receiver', async ({ authKey, onDecision }) => {
  const server = createWebhookServer({ authKeys: authKey, onDecision }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/kyc`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
