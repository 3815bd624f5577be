import { sampleStatusWebhook } from '@kyc/contracts';
import { receiverExampleSuite } from '@kyc/test-support';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { expect, it, vi } from 'vitest';
import { KycWebhookModule } from './app.module.js';
import { createApp } from './main.js';

const AUTH_KEY = 'example-auth-key-7f3c9a1e5b2d4f60';

// The real Nest application on the Express platform, listening on a port: Nest's own JSON
// parser runs first, and the receiver reads the bytes Nest kept (`rawBody: true`).
receiverExampleSuite('nestjs-receiver', async ({ authKey, onDecision }) => {
  const app = await createApp({ authKeys: authKey, onDecision });
  await app.listen(0, '127.0.0.1');
  return { url: `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/webhooks/kyc`, close: () => app.close() };
});

it('answers 500 naming the fix, and acts on nothing, when the app forgot rawBody: true', async () => {
  const decisions: unknown[] = [];
  @Module({ imports: [KycWebhookModule.forRoot({ authKeys: AUTH_KEY, onDecision: (d) => void decisions.push(d) })] })
  class ForgetfulModule {}
  const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
  const app = await NestFactory.create(ForgetfulModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  try {
    const response = await fetch(`${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/webhooks/kyc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${AUTH_KEY}` },
      body: JSON.stringify(sampleStatusWebhook),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: 'receiver_misconfigured' } });
    expect(decisions).toEqual([]);
    expect(logged.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(/rawBody: true/);
  } finally {
    logged.mockRestore();
    await app.close();
  }
});
