import { KycInvalidRequestError } from './errors.js';
import type { ServiceEndpoints } from './service-url.js';

// `.` or `..` as a whole path segment, also percent-encoded: URL parsers resolve these.
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=[/?#]|$)/i;
// Encoded `/` or `\`: a proxy that decodes them would route the request elsewhere.
const ENCODED_SEPARATOR = /%2f|%5c/i;

/**
 * Reads the session id out of a webhook's detailsURL, refusing (with no request sent) any
 * URL that does not point at exactly the configured service: same scheme, host and port, no
 * userinfo, path `{prefix}/api/v1/kyc/session/<one segment>`, no dot segments, no encoded
 * slashes, no query or fragment, no whitespace, control characters or backslashes (which URL
 * parsers silently rewrite). A forged webhook must not make the customer's server send its
 * credentials elsewhere. The caller then builds its own URL from the id, so nothing of the
 * attacker's string is fetched verbatim.
 *
 * @example
 * sessionIdFromDetailsUrl('https://kyc.example.com/api/v1/kyc/session/s1', endpoints) // 's1'
 * sessionIdFromDetailsUrl('https://kyc.example.com/api/v1/kyc-evil/session/s1', endpoints) // throws
 */
export function sessionIdFromDetailsUrl(detailsUrl: unknown, endpoints: ServiceEndpoints): string {
  const refuse = (rule: string) =>
    new KycInvalidRequestError('details_url_refused', `detailsURL refused: ${rule}; no request was sent`);
  if (typeof detailsUrl !== 'string') throw refuse('it is not a string');
  if (hasUnsafeCharacter(detailsUrl)) throw refuse('it contains whitespace, a control character or a backslash');
  if (!URL.canParse(detailsUrl)) throw refuse('it is not an absolute URL');
  const url = new URL(detailsUrl);
  const { base } = endpoints;
  if (url.username !== '' || url.password !== '' || authorityOf(detailsUrl).includes('@')) {
    throw refuse('it contains userinfo');
  }
  if (url.protocol !== base.protocol || url.hostname !== base.hostname || url.port !== base.port) {
    throw refuse(`it does not point at the configured service origin ${base.origin}`);
  }
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(detailsUrl)) throw refuse('it has a query or fragment');
  if (DOT_SEGMENT.test(pathOf(detailsUrl))) throw refuse('its path contains a dot segment');
  const { pathname } = url;
  if (!pathname.startsWith(endpoints.sessionPathPrefix)) throw refuse('its path is not a session URL of the service');
  const segment = pathname.slice(endpoints.sessionPathPrefix.length);
  if (segment === '' || segment.includes('/')) throw refuse('its path is not a session URL of the service');
  if (ENCODED_SEPARATOR.test(segment)) throw refuse('its session id contains an encoded slash or backslash');
  try {
    return decodeURIComponent(segment);
  } catch {
    throw refuse('its session id is not valid percent-encoding');
  }
}

function hasUnsafeCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 0x20 || code === 0x7f || code === 0x5c) return true;
  }
  return false;
}

/** The text between `scheme://` and the path, as written (before any URL normalisation). */
function authorityOf(text: string): string {
  const start = text.indexOf('//');
  if (start < 0) return '';
  const rest = text.slice(start + 2);
  const end = rest.search(/[/?#]/);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The path as written, before a URL parser resolves dot segments. */
function pathOf(text: string): string {
  const start = text.indexOf('//');
  const rest = start < 0 ? text : text.slice(start + 2);
  const slash = rest.indexOf('/');
  if (slash < 0) return '';
  const path = rest.slice(slash);
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}
