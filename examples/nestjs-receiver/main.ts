/**
 * NestJS (Express platform) receiver for KYC completion webhooks. The one setting Nest needs:
 * `rawBody: true`, so the receiver checks and parses the bytes that were sent.
 */
import 'reflect-metadata';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KycWebhookModule, type KycWebhookOptions } from './app.module.js';

export async function createApp(options: KycWebhookOptions): Promise<INestApplication> {
  @Module({ imports: [KycWebhookModule.forRoot(options)] })
  class AppModule {}
  return NestFactory.create(AppModule, { rawBody: true, logger: ['error', 'warn'] });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const authKey = process.env.KYC_AUTH_KEY;
  if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
  const port = Number(process.env.PORT ?? 3000);
  const app = await createApp({
    authKeys: authKey,
    onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
  });
  await app.listen(port);
  console.info(`KYC webhooks on http://localhost:${port}/webhooks/kyc (put TLS in front of it)`);
}
