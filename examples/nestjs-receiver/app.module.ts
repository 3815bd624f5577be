import { decide, type KycDecision } from '@kyc/example-actions';
import { createWebhookReceiver, type IdempotencyStore } from '@kyc/webhook-receiver';
import { type DynamicModule, Module } from '@nestjs/common';
import { KYC_WEBHOOK_RECEIVER, KycWebhookController } from './kyc-webhook.controller.js';

export interface KycWebhookOptions {
  /** The Auth Key saved in the KYC dashboard; several during a rotation. */
  readonly authKeys: string | readonly string[];
  /** The signing secrets (`whsec_…`) from Settings → Signing secret; the new and the old during a rotation. */
  readonly signingSecrets?: string | readonly string[];
  /** Where the decision goes: your database write or job enqueue. Keep it fast (< 25 s). */
  readonly onDecision: (decision: KycDecision) => Promise<void> | void;
  /** Shared by all replicas in production (`@kyc/webhook-receiver/redis` or `/postgres`). */
  readonly idempotencyStore?: IdempotencyStore;
}

@Module({})
export class KycWebhookModule {
  static forRoot({ authKeys, signingSecrets, onDecision, idempotencyStore }: KycWebhookOptions): DynamicModule {
    const receiver = createWebhookReceiver({
      authKeys,
      // Every delivery must then carry a valid webhook-signature over req.rawBody (5-minute tolerance).
      ...(signingSecrets ? { signingSecrets } : {}),
      ...(idempotencyStore ? { idempotencyStore } : {}),
      onEvent: (event) => onDecision(decide(event)),
    });
    return {
      module: KycWebhookModule,
      controllers: [KycWebhookController],
      providers: [{ provide: KYC_WEBHOOK_RECEIVER, useValue: receiver }],
    };
  }
}
