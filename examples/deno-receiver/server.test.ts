import { fileURLToPath } from 'node:url';
import { receiverExampleSuite, runtimeBinary, startProcessExample } from '@kyc/test-support';

// server.ts runs under the real Deno (the binary of the `deno` npm package) with the permissions
// its header names. In the workspace Deno reads the packages' TypeScript sources (`@kyc/source`;
// sloppy imports map their `./x.js` specifiers to `./x.ts`); an installed package needs neither flag.
receiverExampleSuite(
  'deno-receiver',
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
          'server.ts',
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
