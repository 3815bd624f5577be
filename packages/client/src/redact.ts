import { HEADERS } from '@kyc/contracts/service-api';

/** What replaces a secret wherever it would otherwise be shown. */
export const REDACTED = '[REDACTED]';

// Headers a caller may add through `headers` that commonly carry credentials.
const SECRET_HEADER_NAME = /auth|cookie|token|secret|key|password/i;

/**
 * Copies headers for an error's request info with every credential-looking value replaced,
 * `authorization` always.
 *
 * @example
 * redactHeaders({ authorization: 'Basic abc' }) // { authorization: '[REDACTED]' }
 */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    copy[name] = name.toLowerCase() === HEADERS.authorization || SECRET_HEADER_NAME.test(name) ? REDACTED : value;
  }
  return copy;
}

/** Replaces given secrets in text and in every string of a parsed JSON value. */
export type Scrubber = <T>(value: T) => T;

/**
 * Builds a function that removes the given secrets (the password, the encoded `Authorization`
 * value) from anything the service sends back before it is put on an error: a server that
 * echoes the request must not leak the credential into the caller's logs.
 *
 * @example
 * createScrubber(['hunter2'])('echo: hunter2') // 'echo: [REDACTED]'
 */
export function createScrubber(secrets: readonly string[]): Scrubber {
  const needles = secrets.filter((secret) => secret.length > 0);
  const scrubText = (text: string): string =>
    needles.reduce((result, needle) => result.split(needle).join(REDACTED), text);
  const scrub = (value: unknown): unknown => {
    if (typeof value === 'string') return scrubText(value);
    if (Array.isArray(value)) return value.map(scrub);
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [scrubText(key), scrub(inner)]));
    }
    return value;
  };
  return scrub as Scrubber;
}
