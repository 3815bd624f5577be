import { fileURLToPath } from 'node:url';
import { receiverExampleSuite, runtimeBinary, startProcessExample } from '@kyc/test-support';

// server.ts runs under the real Bun (the binary of the `bun` npm package), unbundled: Bun reads
// the workspace's TypeScript sources through the same `@kyc/source` condition as the tests.
receiverExampleSuite(
  'bun-receiver',
  ({ authKey, signingSecrets, onDecision }) =>
    startProcessExample(
      {
        command: runtimeBinary('bun'),
        args: ['--conditions=@kyc/source', 'server.ts'],
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env: { KYC_AUTH_KEY: authKey, KYC_SIGNING_SECRETS: signingSecrets?.join(' ') ?? '', PORT: '0' },
      },
      onDecision,
    ),
  { signing: true },
);
