import type { WebhookReceiver } from '@kyc/webhook-receiver';
import { toNodeHandler } from '@kyc/webhook-receiver/node';
import { All, Controller, Inject, type RawBodyRequest, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';

/** The injection token of the configured receiver (see app.module.ts). */
export const KYC_WEBHOOK_RECEIVER = Symbol('KYC_WEBHOOK_RECEIVER');

/**
 * Hands every request on the webhook route to the receiver, which answers it itself (`@Res()`):
 * status, headers and body follow the receiver table, not Nest's defaults. Nest has parsed the
 * JSON already; with `rawBody: true` it keeps the exact bytes in `req.rawBody`, which the
 * receiver reads. Without that option it answers 500 naming the fix instead of guessing bytes.
 */
@Controller('webhooks/kyc')
export class KycWebhookController {
  readonly #handle: ReturnType<typeof toNodeHandler>;

  constructor(@Inject(KYC_WEBHOOK_RECEIVER) receiver: WebhookReceiver) {
    this.#handle = toNodeHandler(receiver);
  }

  @All()
  receive(@Req() request: RawBodyRequest<Request>, @Res() response: Response): void {
    this.#handle(request, response);
  }
}
