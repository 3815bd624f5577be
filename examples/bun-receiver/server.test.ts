import { fileURLToPath } from 'node:url';
import { receiverExampleSuite, runtimeBinary, startProcessExample } from '@kyc/test-support';

// server.ts runs under the real Bun (the binary of the `bun` npm package), unbundled: Bun reads
// the workspace's TypeScript sources through the same `@kyc/source` condition as the tests.
receiverExampleSuite('bun-receiver', ({ authKey, onDecision }) =>
  startProcessExample(
    {
      command: runtimeBinary('bun'),
      args: ['--conditions=@kyc/source', 'server.ts'],
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      env: { KYC_AUTH_KEY: authKey, PORT: '0' },
    },
    onDecision,
  ),
);
