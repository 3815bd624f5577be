import type { AttemptOutcome } from './types.js';

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL']);
const CONNECT = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
]);
const RESET = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
const TIMEOUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
// OpenSSL verification failures carry their own codes (see `X509_V_ERR_*`); these are the
// ones that do not start with CERT_ or ERR_TLS_/ERR_SSL_.
const TLS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'HOSTNAME_MISMATCH',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'EPROTO',
  'UND_ERR_PRX_TLS',
]);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Maps a network or undici error to an attempt outcome, following `cause` chains (undici
 * wraps socket errors). Anything unrecognised is a `connect_error`: the request did not get
 * an HTTP answer, and the message says why.
 *
 * @example
 * ```ts
 * classifyError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' })); // 'connect_error'
 * ```
 */
export function classifyError(error: unknown): AttemptOutcome {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    const code = codeOf(current);
    if (code !== undefined) {
      if (DNS.has(code)) return 'dns_error';
      if (CONNECT.has(code)) return 'connect_error';
      if (RESET.has(code)) return 'connection_reset';
      if (TIMEOUT.has(code)) return 'timeout';
      if (TLS.has(code) || code.startsWith('CERT_') || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) {
        return 'tls_error';
      }
      if (code.startsWith('HPE_')) return 'connection_reset';
    }
    current = typeof current === 'object' && 'cause' in current ? current.cause : undefined;
  }
  return 'connect_error';
}

/** The error's message (and its cause's), for the attempt log. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = codeOf(error);
  const cause = error.cause instanceof Error && error.cause.message !== error.message ? `: ${error.cause.message}` : '';
  const text = `${error.message}${cause}`;
  return code !== undefined && !text.includes(code) ? `${code}: ${text}` : text;
}

// Failures to open a connection at all: no byte of the request has left.
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);

/**
 * Whether an error means the address could not be connected to at all (refused, no route), so
 * another vetted address of the same host may be tried within the same attempt.
 *
 * @example
 * ```ts
 * isUnreachable(Object.assign(new Error('connect ENETUNREACH'), { code: 'ENETUNREACH' })); // true
 * ```
 */
export function isUnreachable(error: unknown): boolean {
  const code = codeOf(error) ?? (error instanceof Error ? codeOf(error.cause) : undefined);
  return code !== undefined && UNREACHABLE.has(code);
}
