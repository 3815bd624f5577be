import { isIP } from 'node:net';
import { generate } from 'selfsigned';

export interface TestCertificate {
  /** PEM private key. */
  readonly key: string;
  /** PEM certificate; pass it as the trusted CA to the client under test. */
  readonly cert: string;
}

/**
 * A self-signed certificate for loopback HTTPS servers in tests, valid for `localhost`,
 * `127.0.0.1` and `::1` unless other names are given.
 */
export async function createTestCertificate(
  hosts: readonly string[] = ['localhost', '127.0.0.1', '::1'],
): Promise<TestCertificate> {
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
