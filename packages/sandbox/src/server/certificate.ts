import { isIP } from 'node:net';
import { generate } from 'selfsigned';

/** A PEM key and self-signed certificate. */
export interface SelfSignedCertificate {
  readonly key: string;
  readonly cert: string;
}

/**
 * A fresh self-signed certificate for loopback HTTPS (`localhost`, `127.0.0.1`, `::1` by
 * default), made at start and never written to disk by the sandbox.
 *
 * @example
 * ```ts
 * const { key, cert } = await selfSignedCertificate();
 * https.createServer({ key, cert }, handler);
 * ```
 */
export async function selfSignedCertificate(
  hosts: readonly string[] = ['localhost', '127.0.0.1', '::1'],
): Promise<SelfSignedCertificate> {
  const altNames = hosts.map((host) =>
    isIP(host) ? { type: 7 as const, ip: host } : { type: 2 as const, value: host },
  );
  const pems = await generate([{ name: 'commonName', value: hosts[0] ?? 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
