import { isNetworkError } from 'ky';

/**
 * The runtime's own account of a failed request, for `KycConnectionError`: the error to keep as
 * its `cause` and a line saying what happened.
 *
 * ky 2 wraps the runtime's network failure in a `NetworkError` whose `request` is the real
 * `Request`, credentials in its headers: kept as a cause, `util.inspect(error)` would print
 * them. The runtime's own error says what happened without the request, so that is what is
 * kept. Runtimes say it differently: Node's undici puts the socket error's code on the cause
 * (`fetch failed (ECONNREFUSED)`), Bun puts it on the error itself, and Deno says it only in
 * the cause's message (`fetch failed: … Connection refused (os error 111)`).
 *
 * @example
 * runtimeNetworkFailure(new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) })).text
 * // 'fetch failed (ECONNREFUSED)'
 */
export function runtimeNetworkFailure(error: unknown): { readonly cause: unknown; readonly text: string } {
  const cause = isNetworkError(error) ? error.cause : error;
  if (!(cause instanceof Error)) return { cause, text: String(cause) };
  const { message, cause: inner } = cause;
  const code = codeOf(inner) ?? codeOf(cause);
  const text = code
    ? message.includes(code)
      ? message
      : `${message} (${code})`
    : inner instanceof Error && inner.message
      ? `${message}: ${inner.message}`
      : message;
  return { cause, text };
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && code ? code : undefined;
}
