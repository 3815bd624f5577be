import type { AddressInfo } from 'node:net';
import { receiverExampleSuite } from '@kyc/test-support';
import { expect, it } from 'vitest';
import { createApp } from './server.js';

receiverExampleSuite(
  'express-receiver',
  async ({ authKey, signingSecrets, onDecision }) => {
    const server = createApp({ authKeys: authKey, ...(signingSecrets && { signingSecrets }), onDecision }).listen(
      0,
      '127.0.0.1',
    );
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/webhooks/kyc`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  },
  { signing: true },
);

it('keeps express.json() working for the rest of the app, and answers a GET with 405 + Allow: POST', async () => {
  const server = createApp({ authKeys: 'example-auth-key-7f3c9a1e5b2d4f60', onDecision: () => {} }).listen(
    0,
    '127.0.0.1',
  );
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    expect(await response.json()).toEqual({ ok: true });
    const get = await fetch(`http://127.0.0.1:${port}/webhooks/kyc`);
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
