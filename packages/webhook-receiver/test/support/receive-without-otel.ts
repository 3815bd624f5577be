// Run with `--import @kyc/test-support/hide-opentelemetry`: a process in which the optional
// peer cannot be imported. Prints whether it could, and the statuses of three deliveries.
import { sampleStatusWebhook } from '@kyc/contracts';
import { createWebhookReceiver } from '../../src/index.js';

const AUTH_KEY = 'kyc_test_Q3v9ZrT1mW8xLp2N';
let api = 'present';
try {
  await import('@opentelemetry/api');
} catch {
  api = 'absent';
}
const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, onEvent: () => undefined, logger: {} });
const deliver = (key: string) =>
  receiver.handle(
    new Request('http://receiver.test/kyc', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(sampleStatusWebhook),
    }),
  );
const statuses = [];
for (const key of [AUTH_KEY, AUTH_KEY, 'kyc_test_wrong_key_0000000']) statuses.push((await deliver(key)).status);
process.stdout.write(JSON.stringify({ api, statuses }));
