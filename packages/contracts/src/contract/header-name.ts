/**
 * A lower-case header name of `HEADERS` as documents spell it: `x-request-id` → `X-Request-Id`,
 * `www-authenticate` → `WWW-Authenticate`. HTTP header names are case-insensitive; this is
 * only for readers.
 *
 * @example
 * headerName('webhook-id') // 'Webhook-Id'
 */
export function headerName(lowerCase: string): string {
  return lowerCase
    .split('-')
    .map((part) => (part === 'www' ? 'WWW' : `${part.charAt(0).toUpperCase()}${part.slice(1)}`))
    .join('-');
}
