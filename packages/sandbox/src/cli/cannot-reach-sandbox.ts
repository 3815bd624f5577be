/** Verification failures that mean "this machine does not trust the certificate's issuer". */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/**
 * Why the CLI could not talk to the sandbox, with advice that follows the cause: a certificate
 * this machine does not trust is not fixed by checking whether the sandbox runs.
 */
export function cannotReachSandbox(origin: string, cause: string): string {
  if (UNTRUSTED_CERTIFICATE.has(cause)) {
    return `the sandbox at ${origin} presented a certificate this machine does not trust (${cause}). A sandbox started with --https prints its certificate's file: run this command with NODE_EXTRA_CA_CERTS=<that file>. For a shared sandbox, ask its operator for the CA certificate.`;
  }
  if (cause === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `the sandbox at ${origin} presented a certificate made for another host name (${cause}): pass --service with the host name the certificate names.`;
  }
  if (cause.startsWith('CERT_') || cause.startsWith('ERR_TLS_') || cause.startsWith('ERR_SSL_')) {
    return `the TLS handshake with the sandbox at ${origin} failed (${cause}): its certificate or TLS set-up is at fault (an expired certificate, say); tell its operator.`;
  }
  return `cannot reach the sandbox at ${origin} (${cause}): is it running? Pass --service <url> or set KYC_SANDBOX_URL`;
}
