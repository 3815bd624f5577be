/**
 * `kyc-sandbox listen` in its own process, for the listener-kills scenario: the real CLI entry
 * of the sandbox package, bundled from the tree like every chaos worker. Configured by
 * `KYC_CHAOS` (JSON); the receiver's CA comes in NODE_EXTRA_CA_CERTS, as a developer would
 * trust a local HTTPS server. Prints what the CLI prints (`Ready!` once connected). The parent
 * kills it with SIGKILL at random moments.
 */
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { PassThrough } from 'node:stream';

interface ListenConfig {
  readonly service: string;
  readonly username: string;
  readonly password: string;
  readonly forwardTo: string;
  /** `ack-unseen`: a broken CLI that answers every fifth delivery 200 itself, without posting it. */
  readonly breakWith?: string;
}

const config = JSON.parse(process.env.KYC_CHAOS ?? '{}') as ListenConfig;

if (config.breakWith === 'ack-unseen') {
  const real = https.request;
  let count = 0;
  // The broken build: a tunnel that acknowledges some requests locally instead of delivering them.
  https.request = ((...args: Parameters<typeof https.request>) => {
    if (++count % 5 !== 0) return real(...args);
    const callback = args.find((arg) => typeof arg === 'function') as ((res: PassThrough) => void) | undefined;
    const fake = new PassThrough();
    Object.assign(fake, { statusCode: 200 });
    const request = new PassThrough();
    request.on('finish', () => {
      callback?.(fake);
      fake.end('{"received":true}');
    });
    request.resume();
    return request as unknown as ReturnType<typeof https.request>;
  }) as typeof https.request;
  syncBuiltinESMExports();
}

process.env.KYC_SANDBOX_URL = config.service;
process.env.KYC_SANDBOX_USER = config.username;
process.env.KYC_SANDBOX_PASSWORD = config.password;
process.argv = [process.argv[0] ?? 'node', 'kyc-sandbox', 'listen', '--forward-to', config.forwardTo];
// The CLI reads its arguments when it loads: import it only now.
await import('../../../../packages/sandbox/src/cli.js');
