import {
  API_BASE_PATH,
  SESSION_FINISH_PATH,
  SESSION_ID_MAX_LENGTH,
  SESSION_PATH,
  sessionIdMiniSchema,
} from '@kyc/contracts/service-api';
import { KycInvalidRequestError } from './errors.js';

/** Where the service API lives, derived once from `baseUrl`. */
export interface ServiceEndpoints {
  /** `baseUrl` without trailing slashes (origin + optional path prefix). */
  readonly baseUrl: string;
  /** The parsed base, for the origin checks of detailsURL. */
  readonly base: URL;
  /** Path every session URL starts with: `{prefix}/api/v1/kyc/session/`. */
  readonly sessionPathPrefix: string;
  readonly finishUrl: string;
}

/**
 * Checks `baseUrl` and derives the endpoint URLs. A prefix (`https://host/kyc-proxy`) is kept;
 * a trailing slash is ignored. Credentials, a query or a fragment in `baseUrl` are refused,
 * and the message never repeats the URL (it might hold a password).
 *
 * @example
 * resolveEndpoints('https://kyc.example.com/prefix/').finishUrl
 * // 'https://kyc.example.com/prefix/api/v1/kyc/session/finish'
 */
export function resolveEndpoints(baseUrl: unknown): ServiceEndpoints {
  const refuse = (rule: string) => new KycInvalidRequestError('invalid_option', `baseUrl ${rule}`);
  if (typeof baseUrl !== 'string' || !URL.canParse(baseUrl)) throw refuse('must be an absolute http(s) URL');
  const base = new URL(baseUrl);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw refuse('must use http: or https:');
  if (base.username !== '' || base.password !== '') {
    throw refuse('must not contain credentials; pass username and password as options');
  }
  if (base.search !== '' || base.hash !== '' || baseUrl.includes('?') || baseUrl.includes('#')) {
    throw refuse('must not contain a query or fragment');
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  const normalized = `${base.origin}${prefix}`;
  return {
    baseUrl: normalized,
    base,
    sessionPathPrefix: `${prefix}${API_BASE_PATH}${SESSION_PATH}/`,
    finishUrl: `${normalized}${API_BASE_PATH}${SESSION_FINISH_PATH}`,
  };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks a session id before it goes into a request: a non-empty string within the contract's
 * length limit, not `.` or `..` (a URL parser would treat those path segments as
 * "this/parent folder" even when percent-encoded, so they cannot be sent safely), and
 * well-formed Unicode.
 *
 * @example
 * assertSessionId('sess_1', 'sessionId') // 'sess_1'
 */
export function assertSessionId(sessionId: unknown, argument: string): string {
  const parsed = sessionIdMiniSchema.safeParse(sessionId);
  if (!parsed.success) {
    const got = typeof sessionId === 'string' ? `a string of length ${sessionId.length}` : typeofName(sessionId);
    throw new KycInvalidRequestError(
      'invalid_session_id',
      `${argument} must be a non-empty string of at most ${SESSION_ID_MAX_LENGTH} characters (got ${got})`,
    );
  }
  if (parsed.data === '.' || parsed.data === '..') {
    throw new KycInvalidRequestError('invalid_session_id', `${argument} must not be "." or ".." (a URL dot segment)`);
  }
  if (LONE_SURROGATE.test(parsed.data)) {
    // encodeURIComponent throws a URIError on these, and no URL can carry them.
    throw new KycInvalidRequestError(
      'invalid_session_id',
      `${argument} must be well-formed Unicode (no lone surrogate)`,
    );
  }
  return parsed.data;
}

/**
 * The URL of one session, the id percent-encoded (`a/b` → `a%2Fb`): the same URL as
 * `sessionDetailsUrl` of `@kyc/contracts` (tests hold them equal), built here because that
 * helper lives beside the contract's fixtures, whose frozen samples would ride into every bundle.
 *
 * @example
 * sessionUrl(resolveEndpoints('https://kyc.example.com'), 'a/b')
 * // 'https://kyc.example.com/api/v1/kyc/session/a%2Fb'
 */
export function sessionUrl(endpoints: ServiceEndpoints, sessionId: string): string {
  return `${endpoints.baseUrl}${API_BASE_PATH}${SESSION_PATH}/${encodeURIComponent(sessionId)}`;
}

function typeofName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
