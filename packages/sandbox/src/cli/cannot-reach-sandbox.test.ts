import { describe, expect, it } from 'vitest';
import { cannotReachSandbox } from './cannot-reach-sandbox.js';

const ORIGIN = 'https://sandbox.example';

describe('cannotReachSandbox', () => {
  it('gives advice that follows the cause', () => {
    expect(cannotReachSandbox(ORIGIN, 'ECONNREFUSED')).toMatch(/is it running\?/);
    expect(cannotReachSandbox(ORIGIN, 'SELF_SIGNED_CERT_IN_CHAIN')).toMatch(/does not trust .* NODE_EXTRA_CA_CERTS=/);
    expect(cannotReachSandbox(ORIGIN, 'ERR_TLS_CERT_ALTNAME_INVALID')).toMatch(/made for another host name/);
    expect(cannotReachSandbox(ORIGIN, 'CERT_HAS_EXPIRED')).toMatch(/TLS handshake .* failed \(CERT_HAS_EXPIRED\)/);
    // Only a connection failure asks whether the sandbox runs.
    for (const cause of ['SELF_SIGNED_CERT_IN_CHAIN', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED']) {
      expect(cannotReachSandbox(ORIGIN, cause)).not.toMatch(/is it running/);
    }
  });
});
