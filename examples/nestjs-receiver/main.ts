/**
 * NestJS (Express platform) receiver for KYC completion webhooks. The two settings Nest needs:
 * `rawBody: true`, so the receiver checks and parses the bytes that were sent, and a JSON limit
 * as large as the receiver's (Nest's own is 100 KB: a larger delivery would get Nest's 413).
 */
import 'reflect-metadata';
import { DEFAULT_MAX_BODY_BYTES } from '@kyc/contracts';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { KycWebhookModule, type KycWebhookOptions } from './app.module.js';

export async function createApp(options: KycWebhookOptions): Promise<INestApplication> {
  @Module({ imports: [KycWebhookModule.forRoot(options)] })
  class AppModule {}
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { rawBody: true, logger: ['error', 'warn'] });
  // The receiver's limit (its `maxBodyBytes`, 1 MiB by default); rawBody is kept with it.
  return app.useBodyParser('json', { limit: DEFAULT_MAX_BODY_BYTES });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const authKey = process.env.KYC_AUTH_KEY;
  if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
  // "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
  const signingSecrets = process.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];
  const port = Number(process.env.PORT ?? 3000);
  const app = await createApp({
    authKeys: authKey,
    ...(signingSecrets.length ? { signingSecrets } : {}),
    onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
  });
  await app.listen(port);
  console.info(`KYC webhooks on http://localhost:${port}/webhooks/kyc (put TLS in front of it)`);
}
