import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sampleStatusWebhook } from '@kyc/contracts';
import { receiverExampleSuite, startProcessExample } from '@kyc/test-support';
import { EXAMPLE_SIGNING_SECRETS, signatureHeaders } from '@kyc/test-support/signing';
import { beforeAll, describe, expect, it } from 'vitest';

// The example as a customer ships it: a real `next build` (webpack, as next.config.ts sets it up,
// with any webpack warning failing the build) of both routes, then `next start`. The receivers
// are made at module scope, on the Node runtime and on the Edge runtime (Vercel Edge Functions).
// The packages come from their published build (`pnpm build` first), as a customer's install.
const run = promisify(execFile);
const DIR = fileURLToPath(new URL('.', import.meta.url));
const NEXT = fileURLToPath(new URL('./node_modules/next/dist/bin/next', import.meta.url));
const AUTH_KEY = 'example-auth-key-7f3c9a1e5b2d4f60';
const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  NODE_ENV: 'production' as const,
  NEXT_TELEMETRY_DISABLED: '1',
};
let buildOutput = '';

beforeAll(async () => {
  // `next build` loads each route module to read its config: the key is set as in production.
  const { stdout, stderr } = await run(process.execPath, [NEXT, 'build', '--webpack'], {
    cwd: DIR,
    env: { ...env, KYC_AUTH_KEYS: AUTH_KEY },
    timeout: 280_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  buildOutput = stdout + stderr;
}, 300_000);

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

const startNext =
  (path: string) =>
  async ({ authKey, signingSecrets, onDecision }: Parameters<Parameters<typeof receiverExampleSuite>[1]>[0]) => {
    const port = await freePort();
    return startProcessExample(
      {
        command: process.execPath,
        args: [NEXT, 'start', '-p', String(port), '-H', '127.0.0.1'],
        cwd: DIR,
        env: { ...env, KYC_AUTH_KEYS: authKey, KYC_SIGNING_SECRETS: signingSecrets?.join(' ') ?? '' },
        path,
      },
      onDecision,
    );
  };

describe('next build', () => {
  it('builds both routes with no warning about the optional @opentelemetry/api import', () => {
    expect(buildOutput).toContain('/api/kyc-webhook-edge');
    expect(buildOutput).not.toMatch(/Critical dependency|cannot be analyzed|Compiled with warnings/);
  });
});

receiverExampleSuite('nextjs-route-handler, Edge runtime, after next build', startNext('/api/kyc-webhook-edge'), {
  signing: true,
});

describe('nextjs-route-handler, Node runtime, after next build', () => {
  it('answers a signed delivery, a wrong key, an unsigned delivery and a GET', async () => {
    const { new: newSecret, old: oldSecret } = EXAMPLE_SIGNING_SECRETS;
    const signingSecrets = [newSecret, oldSecret];
    const server = await startNext('/api/kyc-webhook')({ authKey: AUTH_KEY, signingSecrets, onDecision: () => {} });
    try {
      const body = JSON.stringify({ ...sampleStatusWebhook, sessionId: 'next-start-1' });
      const deliver = async (key: string, secrets: readonly string[] = [newSecret]) =>
        fetch(server.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${key}`,
            ...(secrets.length > 0 && (await signatureHeaders(body, { id: `evt-${crypto.randomUUID()}`, secrets }))),
          },
          body,
        });
      expect((await deliver(AUTH_KEY)).status).toBe(200);
      expect((await deliver('not-the-key-but-sixteen')).status).toBe(401);
      expect((await deliver(AUTH_KEY, [])).status).toBe(401);
      const get = await fetch(server.url);
      expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    } finally {
      await server.close();
    }
  });
});
