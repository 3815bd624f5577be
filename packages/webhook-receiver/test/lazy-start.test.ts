import { registerHooks } from 'node:module';
import { sampleStatusWebhook } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../src/index.js';
import { createTestRequest } from '../src/testing.js';

// Making a receiver must do no I/O (a module's top level on workerd may not): the optional
// `@opentelemetry/api` is looked for when the first request ends, not when the receiver is made.
const asked: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    // Vitest hands Node the path it resolved: match the package's folder, not the bare name.
    if (/@opentelemetry[\\/+]api/.test(specifier)) asked.push('@opentelemetry/api');
    return nextResolve(specifier, context);
  },
});

describe('a receiver looks for @opentelemetry/api on first use', () => {
  it('not when it is made, and once the first request is answered', async () => {
    const authKey = 'kyc_lazy_start_Wq4Lx9Zc2Rv7';
    const receiver = createWebhookReceiver({ authKeys: authKey, onEvent: () => undefined, logger: {} });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(asked).toEqual([]);
    const response = await receiver.handle(createTestRequest({ payload: sampleStatusWebhook, authKey }));
    expect(response.status).toBe(200);
    expect(asked).toEqual(['@opentelemetry/api']);
  });
});
