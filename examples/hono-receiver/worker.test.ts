import { fileURLToPath } from 'node:url';
import { receiverExampleSuite } from '@kyc/test-support';
import { startWorkerExample } from '@kyc/test-support/workerd';

// app.ts in the real workerd, through worker.ts, bundled as `wrangler deploy` would from wrangler.jsonc.
receiverExampleSuite(
  'hono-receiver on workerd',
  ({ authKey, signingSecrets, onDecision }) =>
    startWorkerExample(
      fileURLToPath(new URL('.', import.meta.url)),
      { KYC_AUTH_KEY: authKey, KYC_SIGNING_SECRETS: signingSecrets?.join(' ') ?? '' },
      onDecision,
    ),
  { signing: true },
);
