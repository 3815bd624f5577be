import { fileURLToPath } from 'node:url';
import { receiverExampleSuite, runtimeBinary, startProcessExample } from '@kyc/test-support';

// app.ts under the real Deno, through deno.ts (Deno.serve + app.fetch), with the permissions its
// header names. `@kyc/source` and sloppy imports only let Deno read the workspace's TypeScript.
receiverExampleSuite(
  'hono-receiver on Deno',
  ({ authKey, signingSecrets, onDecision }) => {
    const cwd = fileURLToPath(new URL('.', import.meta.url));
    return startProcessExample(
      {
        command: runtimeBinary('deno'),
        args: [
          'run',
          '--quiet',
          '--no-prompt',
          '--no-lock',
          '--conditions=@kyc/source',
          '--unstable-sloppy-imports',
          '--allow-net',
          '--allow-env=KYC_AUTH_KEY,KYC_SIGNING_SECRETS,PORT',
          'deno.ts',
        ],
        cwd,
        env: {
          KYC_AUTH_KEY: authKey,
          KYC_SIGNING_SECRETS: signingSecrets?.join(' ') ?? '',
          PORT: '0',
          DENO_DIR: `${cwd}node_modules/.deno`,
        },
      },
      onDecision,
    );
  },
  { signing: true },
);
