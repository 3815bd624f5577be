import { DEFAULT_MAX_BODY_BYTES, sampleStatusWebhook } from '@kyc/contracts';
import { receiverExampleSuite } from '@kyc/test-support';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { expect, it, vi } from 'vitest';
import { KycWebhookModule } from './app.module.js';
import { createApp } from './main.js';

const AUTH_KEY = 'example-auth-key-7f3c9a1e5b2d4f60';

// The real Nest application on the Express platform, listening on a port: Nest's own JSON
// parser runs first, and the receiver reads the bytes Nest kept (`rawBody: true`).
receiverExampleSuite(
  'nestjs-receiver',
  async ({ authKey, signingSecrets, onDecision }) => {
    const app = await createApp({ authKeys: authKey, ...(signingSecrets && { signingSecrets }), onDecision });
    await app.listen(0, '127.0.0.1');
    return { url: `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/webhooks/kyc`, close: () => app.close() };
  },
  { signing: true },
);

it('accepts a delivery just under the receiver limit (Nest keeps its own 100 KB JSON limit unless raised)', async () => {
  const decisions: { sessionId: string }[] = [];
  const app = await createApp({ authKeys: AUTH_KEY, onDecision: (d) => void decisions.push(d) });
  await app.listen(0, '127.0.0.1');
  try {
    const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/webhooks/kyc`;
    const base = JSON.stringify({ ...sampleStatusWebhook, sessionId: 'nest-big-1', padding: '' });
    const body = base.replace('"padding":""', `"padding":"${'x'.repeat(DEFAULT_MAX_BODY_BYTES - 64 - base.length)}"`);
    const send = (payload: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${AUTH_KEY}` },
        body: payload,
      });
    expect((await send(body)).status).toBe(200);
    expect(decisions.map((d) => d.sessionId)).toEqual(['nest-big-1']);
    // Past the limit: a 413, from Nest's parser or the receiver, and nothing acted on.
    expect((await send(body.replace('"padding":"', `"padding":"${'x'.repeat(128)}`))).status).toBe(413);
    const get = await fetch(url);
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  } finally {
    await app.close();
  }
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
