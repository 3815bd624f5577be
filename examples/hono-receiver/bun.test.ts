import { fileURLToPath } from 'node:url';
import { receiverExampleSuite, runtimeBinary, startProcessExample } from '@kyc/test-support';

// app.ts under the real Bun, through bun.ts (Bun.serve + app.fetch).
receiverExampleSuite(
  'hono-receiver on Bun',
  ({ authKey, signingSecrets, onDecision }) =>
    startProcessExample(
      {
        command: runtimeBinary('bun'),
        args: ['--conditions=@kyc/source', 'bun.ts'],
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env: { KYC_AUTH_KEY: authKey, KYC_SIGNING_SECRETS: signingSecrets?.join(' ') ?? '', PORT: '0' },
      },
      onDecision,
    ),
  { signing: true },
);
